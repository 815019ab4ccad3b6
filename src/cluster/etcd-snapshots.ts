// Node machine snapshots in etcd (cluster mode's NodeSnapshots): any member resumes a node exactly where
// the last one stopped. The reconciler reads and writes synchronously, so a node's snapshot is read into a
// cache when its owner key is taken (before the reconciler drives it), and every save is a fenced write
// sent at once; a command to the node waits until its node's writes are done (see ClusterMember.guard), so
// the state that decides after a failover (the boot id read before a reboot) is in etcd before the reboot.

import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { NodeSnapshots } from '../reconciler/snapshot-store.js';
import { BatchedGets } from './batched-gets.js';
import type { ClusterKeys } from './etcd.js';
import type { FencedWrites } from './fenced-writes.js';

export class EtcdSnapshots implements NodeSnapshots {
  readonly #cache = new Map<string, string>();
  /** The snapshots of nodes taken at once are read together (a member takes thousands when it starts). */
  readonly reads: BatchedGets;

  constructor(private readonly options: { client: Etcd3; keys: ClusterKeys; writes: FencedWrites; timeoutMs: number; log: Logger }) {
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
