// Nodes' transition histories and run reports across members (issue 19 item 4). The owner writes a node's
// detail (node-detail.ts) to `<prefix>detail/<node>` as a fenced write: at once when one of its run reports
// finishes or it starts rebooting, and otherwise at most once per `delayMs` after its first change not yet written (a transition,
// a phase added to the running report), never on every transition: at 10,000 nodes the status key already
// carries each transition, and a detail is several times its size. A member that does not drive the node
// reads the key when a page or the API asks (cached for `cacheMs`, a bounded number of nodes); it keeps no
// history of its own for such nodes. On takeover the new owner loads the key before driving the node, and its
// own records follow the old owner's.

import type { NodeDetail, NodeDetailSource, StatusEvent, StatusStore } from '../reconciler/status-store.js';
import { BatchedGets } from './batched-gets.js';
import type { ClusterContext } from './etcd.js';
import type { FencedWrites } from './fenced-writes.js';
import { type DetailRead, decodeDetail, encodeDetail } from './node-detail.js';

export interface SharedDetailsOptions extends ClusterContext {
  status: StatusStore;
  /** Whether this member holds the node's owner key. */
  holds: (node: string) => boolean;
  writes: FencedWrites;
  /** How long after a node's first unwritten change its detail is written (a finished report: at once). */
  delayMs?: number;
  /** How long a detail read for a page stays good, and for how many nodes at most. */
  cacheMs?: number;
  cacheSize?: number;
  now?: () => number;
}

export class SharedDetails {
  readonly #reads: BatchedGets;
  /** Held nodes with changes not yet written, and when each is due. */
  readonly #due = new Map<string, number>();
  /** Nodes loaded at takeover, not yet seen held: their records are not dropped as another member's. */
  readonly #loaded = new Set<string>();
  /** Held nodes whose detail could not be read at takeover: read again (and merged) before the next write. */
  readonly #unread = new Set<string>();
  readonly #cache = new Map<string, { at: number; read: Promise<DetailRead | null> }>();
  #timer: NodeJS.Timeout | undefined;
  /** Details written, for tests and the benchmark. */
  readonly counts = { written: 0, read: 0 };

  constructor(private readonly options: SharedDetailsOptions) {
    this.#reads = new BatchedGets(options.client, options.timeoutMs, 'detail read');
    options.status.on('change', (event) => this.#changed(event));
  }

  start(): void {
    const every = Math.max(100, Math.min(1000, this.#delayMs));
    this.#timer = setInterval(() => this.#writeDue(), every);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  get #delayMs(): number {
    return this.options.delayMs ?? 5000;
  }

  #now(): number {
    return this.options.now?.() ?? Date.now();
  }

  #changed(event: StatusEvent): void {
    const { holds, status } = this.options;
    if (event.type === 'revision') return;
    const name = event.type === 'node' ? event.node.name : event.report.node;
    if (!holds(name)) {
      // Another member's node: its owner keeps its records (this member's from an earlier tenure are in etcd).
      if (event.type === 'node' && !this.#loaded.has(name) && status.hasDetail(name)) status.dropDetail(name);
      return;
    }
    this.#loaded.delete(name);
    const now =
      (event.type === 'report' && event.report.finishedAt !== undefined) ||
      (event.type === 'node' && event.transition?.state === 'rebooting' && !event.transition.event);
    if (now) {
      // Now, in this turn: the reconciler may hand the node over right after it settles; and a node about to
      // reboot is where a failover matters most (its reboot command waits for this write, ClusterMember.guard).
      this.#write(name);
      return;
    }
    if (event.type === 'node' && !event.transition) return;
    if (!this.#due.has(name)) this.#due.set(name, this.#now() + this.#delayMs);
  }

  #writeDue(): void {
    const now = this.#now();
    for (const [name, due] of this.#due) if (due <= now) this.#write(name);
  }

  #write(name: string): void {
    const { holds, status, writes, keys } = this.options;
    this.#due.delete(name);
    if (!holds(name)) return;
    if (this.#unread.has(name)) {
      // The old owner's records were not read at takeover: read them first, or they would be overwritten.
      void this.load(name, true).then(() => {
        if (!this.#unread.has(name)) this.#write(name);
        else if (!this.#due.has(name)) this.#due.set(name, this.#now() + this.#delayMs);
      });
      return;
    }
    writes.write(name, keys.detail(name), encodeDetail(name, status.packedDetail(name), new Date(this.#now()).toISOString()));
    this.counts.written++;
  }

  /**
   * Reads the node's detail as its last owner left it into the status store (called once its owner key is
   * taken, before the node is driven). `merge`: this member's records since then follow the old owner's.
   */
  async load(name: string, merge = false): Promise<void> {
    const { status, keys, log } = this.options;
    let read: DetailRead | null;
    try {
      read = await this.#read(keys.detail(name), name);
    } catch (err) {
      this.#unread.add(name);
      log.warn({ node: name, err: (err as Error).message }, 'cluster: node history not read at takeover; read again before it is written');
      return;
    }
    this.#unread.delete(name);
    this.#cache.delete(name);
    if (read === null) {
      // Nothing written yet: records this member may keep from an earlier tenure are not this node's story now.
      if (!merge) status.dropDetail(name);
      return;
    }
    if ('unreadable' in read) {
      // Not shown, not kept: this member's records replace it at the next write.
      log.warn({ node: name, reason: read.unreadable }, 'cluster: the node history in etcd is unreadable: starting a new one');
      return;
    }
    const old: NodeDetail = read.detail;
    this.#loaded.add(name);
    status.restoreDetail(
      name,
      merge ? { history: [...old.history, ...status.history(name)], reports: [...old.reports, ...status.reports(name)] } : old,
    );
  }

  /** The server's source of a node's history and reports: undefined for a node this member drives. */
  readonly source: NodeDetailSource = async (name) => {
    if (this.options.holds(name)) return undefined;
    const { cacheMs = 1000, cacheSize = 256 } = this.options;
    const now = this.#now();
    let cached = this.#cache.get(name);
    if (!cached || now - cached.at > cacheMs) {
      const entry = { at: now, read: this.#read(this.options.keys.detail(name), name) };
      // A failed read is not kept: the next ask tries again.
      entry.read.catch(() => this.#cache.get(name) === entry && this.#cache.delete(name));
      cached = entry;
      this.#cache.delete(name);
      this.#cache.set(name, cached);
      for (const oldest of this.#cache.keys()) {
        if (this.#cache.size <= cacheSize) break;
        this.#cache.delete(oldest);
      }
    }
    const read = await cached.read;
    if (read === null) return { history: [], reports: [] };
    return 'unreadable' in read ? read : { history: read.detail.history, reports: read.detail.reports };
  };

  async #read(key: string, name: string): Promise<DetailRead | null> {
    this.counts.read++;
    const text = await this.#reads.get(key);
    if (text === null) return null;
    const read = decodeDetail(name, text);
    if ('unreadable' in read) this.options.rejected.reject('detail', key, text, read.unreadable);
    else this.options.rejected.clear(key);
    return read;
  }
}
