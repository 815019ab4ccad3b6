// Node status across members: the owner writes each of its nodes' status to etcd (fenced), and every member
// reads the others' into its own status store, so any member's page and API show the whole cluster and a
// cross-node gate sees a node driven elsewhere.
//
// Read once in pages at one revision, then watched from the next revision: only changes travel (issue 19: one
// read of every status each second was ~7 MB at 10,000 nodes, past gRPC's 4 MiB answer, from every member). The
// watch resumes from the last revision it saw when its stream reconnects; when etcd has compacted that revision
// away it cancels the watch, and the whole prefix is read again (in pages, at one revision) and watched from
// there. The same full read comes now and then (`fullEveryMs`) as a check that nothing was missed.
//
// Each value is checked as strictly as a repo file (etcd-values.ts): a record that does not parse, or that names
// another node than its key, is skipped and never reaches the status store. Only nodes of the inventory this
// member applies are shown; a status deleted in etcd is forgotten here too.

import { type IKeyValue, Range, type Watcher } from 'etcd3';
import type { NodeStatus, StatusStore } from '../reconciler/status-store.js';
import type { ClusterContext } from './etcd.js';
import { NODE_NAME, parseStatus } from './etcd-values.js';
import type { FencedWrites } from './fenced-writes.js';
import { within } from './membership.js';
import type { Ownership } from './ownership.js';

export interface SharedStatusOptions extends ClusterContext {
  status: StatusStore;
  ownership: Ownership;
  writes: FencedWrites;
  /** Whether the node is in the inventory this member applies: only those are shown (`inventoryChanged` when it changes). */
  known: (node: string) => boolean;
  /** A node driven elsewhere became verified on its desired revision: nodes gated on it may go on. */
  onVerified: (node: string) => void;
  /** Keys in one page of the full read (each ~0.7 KiB). */
  pageSize?: number;
  /** How often the whole prefix is read again while the watch runs. */
  fullEveryMs?: number;
}

/** What a gate needs of a node: verified on the revision it is asked to be at. */
export function verifiedOnDesired(status: Pick<NodeStatus, 'state' | 'lastAppliedRevision' | 'desiredRevision'>): boolean {
  return status.state === 'verified' && status.lastAppliedRevision !== undefined && status.lastAppliedRevision === status.desiredRevision;
}

/** NodeStatus's optional fields, unset: what a remote record does not carry is not shown. */
const CLEARED: Partial<NodeStatus> = {
  labels: undefined,
  phase: undefined,
  reboot: undefined,
  desiredRevision: undefined,
  lastAttemptedRevision: undefined,
  lastAppliedRevision: undefined,
  lastError: undefined,
  waiting: undefined,
  snapshotSetAside: undefined,
};

export class SharedStatus {
  readonly #remote = new Map<string, NodeStatus>();
  readonly #seen = new Map<string, string>();
  /** Nodes whose remote record this member put in its status store (and takes out again when it goes). */
  readonly #shown = new Set<string>();
  #watcher: Watcher | undefined;
  #retry: NodeJS.Timeout | undefined;
  #full: NodeJS.Timeout | undefined;
  #reading: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #everyMs = 1000;
  /** Full reads done and the pages they took, watch events taken in (for tests and the benchmark). */
  readonly counts = { fullReads: 0, pages: 0, events: 0 };

  constructor(private readonly options: SharedStatusOptions) {
    options.status.on('change', (event) => {
      if (event.type !== 'node') return;
      const { node } = event;
      if (options.ownership.holds(node.name)) options.writes.write(node.name, options.keys.status(node.name), JSON.stringify(node));
    });
  }

  /** Reads every status, then follows changes; `everyMs`: the pause before trying again when etcd did not answer. */
  start(everyMs: number): void {
    this.#stopped = false;
    this.#everyMs = everyMs;
    this.#full = setInterval(() => void this.read(), this.options.fullEveryMs ?? 5 * 60_000);
    this.#full.unref();
    void this.read();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#full) clearInterval(this.#full);
    if (this.#retry) clearTimeout(this.#retry);
    void this.#watcher?.cancel().catch(() => undefined);
    this.#watcher = undefined;
  }

  /** The status of a node this member does not drive, as its owner last wrote it. */
  elsewhere(node: string): NodeStatus | undefined {
    if (this.options.ownership.holds(node)) return undefined;
    const known = this.#remote.get(node);
    const text = this.#seen.get(node);
    if (known || text === undefined) return known;
    // Written while this member drove the node (kept as text, not parsed then): parsed once asked for.
    const read = parseStatus(text);
    if (!read.ok || read.status.name !== node) return undefined;
    this.#remote.set(node, read.status);
    return read.status;
  }

  /** The inventory this member applies changed: statuses of nodes now in it are shown, those no longer in it are not. */
  inventoryChanged(): void {
    const { known, ownership } = this.options;
    for (const name of [...this.#shown]) if (!known(name)) this.#hide(name);
    for (const [name, record] of this.#remote)
      if (!this.#shown.has(name) && known(name) && !ownership.holds(name)) this.#show(name, record);
  }

  /** Reads every node's status from etcd into the local store (those this member drives excepted), then watches. */
  read(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = this.#readAndWatch().finally(() => {
      this.#reading = undefined;
      if (this.#again && !this.#stopped) {
        this.#again = false;
        void this.read();
      }
    });
    return this.#reading;
  }

  async #readAndWatch(): Promise<void> {
    const { client, keys, log } = this.options;
    // The watch stops first (its events are ignored from now on: only the current watcher's count): events past
    // the read's revision come again from the new one, none lost, none older than what the read found. Not
    // awaited: a cancel waits for etcd's answer, which a watch etcd already ended never gets.
    const before = this.#watcher;
    this.#watcher = undefined;
    void before?.cancel().catch(() => undefined);
    try {
      const revision = await this.#readAll();
      if (this.#stopped) return;
      const watcher = client
        .watch()
        .prefix(keys.statuses())
        .startRevision((BigInt(revision) + 1n).toString())
        .watcher();
      watcher.on('put', (kv: IKeyValue) => this.#watcher === watcher && this.#event(kv, false));
      watcher.on('delete', (kv: IKeyValue) => this.#watcher === watcher && this.#event(kv, true));
      watcher.on('error', (err: Error) => {
        if (this.#watcher !== watcher) return;
        // Canceled by etcd (the revision to resume from was compacted, or another reason): read afresh.
        log.info({ err: err.message }, 'cluster: status watch ended; reading every status again');
        this.#watcher = undefined;
        this.#later();
      });
      this.#watcher = watcher;
    } catch (err) {
      log.debug({ err: (err as Error).message }, 'cluster: statuses not read');
      this.#later();
    }
  }

  #later(): void {
    if (this.#stopped) return;
    if (this.#retry) clearTimeout(this.#retry);
    this.#retry = setTimeout(() => void this.read(), this.#everyMs);
    this.#retry.unref();
  }

  /** Every status under the prefix, in pages at the first page's revision; returns that revision. */
  async #readAll(): Promise<string> {
    const { client, keys, timeoutMs, pageSize = 500 } = this.options;
    const range = Range.prefix(keys.statuses());
    const found = new Set<string>();
    let revision: string | undefined;
    for (let from = range.start; ; ) {
      const page = await within(
        client.kv.range({ key: from, range_end: range.end, limit: pageSize, ...(revision ? { revision } : {}) }),
        timeoutMs,
        'statuses',
      );
      this.counts.pages++;
      revision ??= page.header.revision;
      for (const kv of page.kvs) found.add(this.#take(kv.key.toString(), kv.value.toString()));
      const last = page.kvs.at(-1);
      if (!page.more || !last) break;
      // The next page starts just after the last key read.
      from = Buffer.concat([last.key, Buffer.from([0])]);
    }
    // A record gone from etcd since the last read: forgotten here too.
    for (const name of [...this.#seen.keys()]) if (!found.has(name)) this.#forget(name);
    this.counts.fullReads++;
    return revision ?? '0';
  }

  #event(kv: IKeyValue, deleted: boolean): void {
    this.counts.events++;
    if (deleted) {
      this.options.rejected.clear(kv.key.toString());
      this.#forget(kv.key.toString().slice(this.options.keys.statuses().length));
    } else this.#take(kv.key.toString(), kv.value.toString());
  }

  #forget(name: string): void {
    this.#seen.delete(name);
    this.#remote.delete(name);
    this.#hide(name);
  }

  /** Takes a remote record out of the status store (a node this member drives keeps the reconciler's). */
  #hide(name: string): void {
    if (!this.#shown.delete(name) || this.options.ownership.holds(name)) return;
    this.options.status.forget(name);
  }

  /** One record as read; returns the node's name. A record that does not parse is skipped (said once, counted). */
  #take(key: string, text: string): string {
    const { keys, ownership, rejected, known } = this.options;
    const name = key.slice(keys.statuses().length);
    if (this.#seen.get(name) === text) return name;
    if (ownership.holds(name)) {
      // This member's own write coming back: its store has it already; parsed only if asked for once let go.
      this.#seen.set(name, text);
      this.#remote.delete(name);
      this.#shown.delete(name);
      return name;
    }
    const read = NODE_NAME.test(name) ? parseStatus(text) : { ok: false as const, reason: 'the key names no node' };
    const why = !read.ok
      ? read.reason
      : read.status.name !== name
        ? `the status of "${read.status.name}" under the key of "${name}"`
        : undefined;
    if (why || !read.ok) {
      // Skipped: what was shown for the node (its last good record, if any) stays until a good one or a delete.
      rejected.reject('status', key, text, why ?? 'invalid');
      return name;
    }
    rejected.clear(key);
    const record = read.status;
    this.#seen.set(name, text);
    const before = this.#remote.get(name);
    this.#remote.set(name, record);
    if (known(name)) this.#show(name, record);
    else this.#hide(name);
    if (verifiedOnDesired(record) && !(before && verifiedOnDesired(before))) this.options.onVerified(name);
    return name;
  }

  /**
   * The record whole into the status store: a field its owner cleared is absent from the JSON, and must not linger
   * here. Its history is its owner's to keep (shared-details.ts): announced here, not kept.
   */
  #show(name: string, record: NodeStatus): void {
    this.#shown.add(name);
    this.options.status.update(name, { ...CLEARED, ...record }, undefined, { remote: true });
  }
}
