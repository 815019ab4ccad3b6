import type { NodeSnapshots } from '../reconciler/snapshot-store.js';
import { BatchedGets } from './batched-gets.js';
import type { ClusterContext } from './etcd.js';
import type { FencedWrites } from './fenced-writes.js';

export class EtcdSnapshots implements NodeSnapshots {
  readonly #cache = new Map<string, string>();
  /** The snapshots of nodes taken at once are read together (a member takes thousands when it starts). */
  readonly reads: BatchedGets;

  constructor(private readonly options: Omit<ClusterContext, 'rejected'> & { writes: FencedWrites }) {
    this.reads = new BatchedGets(options.client, options.timeoutMs, 'snapshot read');
  }

  /** Reads the node's snapshot as its last owner left it (called once its owner key is taken). */
  async prime(node: string): Promise<void> {
    const { keys, writes } = this.options;
    writes.reset(node);
    const text = await this.reads.get(keys.snapshot(node));
    if (text === null) this.#cache.delete(node);
    else this.#cache.set(node, text);
  }

  save(node: string, snapshot: unknown): void {
    const text = JSON.stringify(snapshot);
    if (this.#cache.get(node) === text) return;
    this.#cache.set(node, text);
    this.options.writes.write(node, this.options.keys.snapshot(node), text);
  }

  load(node: string): { saved?: unknown; setAside?: { file: string; reason: string } } {
    const text = this.#cache.get(node);
    if (text === undefined) return {};
    try {
      return { saved: JSON.parse(text) };
    } catch (err) {
      const reason = `unparsable JSON (${(err as Error).message})`;
      return { setAside: { file: this.setAside(node, reason), reason } };
    }
  }

  /** Keeps the snapshot under set-aside/NODE/TIME for a post-mortem; returns that key. */
  setAside(node: string, reason: string): string {
    const { keys, writes, log } = this.options;
    const key = keys.setAside(node, Date.now());
    const text = this.#cache.get(node) ?? '';
    writes.write(node, key, JSON.stringify({ reason, snapshot: text }));
    this.remove(node);
    log.warn({ node, key, reason }, 'snapshot cannot be restored: set aside in etcd, the node starts over from its facts');
    return `etcd:${key}`;
  }

  remove(node: string): void {
    this.#cache.delete(node);
    this.options.writes.write(node, this.options.keys.snapshot(node), null);
  }
}
