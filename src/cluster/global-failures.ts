// The failure budget across members: a node that fails on a revision is recorded at
// `<prefix>failures/<revision>/<node>` by its owner (a fenced write: a transaction on its owner key), and
// cleared by whoever owns it when it recovers. Every member counts every member's failures, so a revision's
// rollout halts cluster-wide once the budget is spent. The record is under no lease: a failure outlives the
// member that saw it, as a stalled node outlives its owner.

import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { GlobalFailures as Shared } from '../reconciler/rollout.js';
import type { ClusterKeys } from './etcd.js';
import type { FencedWrites } from './fenced-writes.js';
import { within } from './membership.js';

export class GlobalFailures implements Shared {
  /** Failed nodes by revision, as last read (with this member's own records and clears applied at once). */
  #failed = new Map<string, Set<string>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      client: Etcd3;
      keys: ClusterKeys;
      writes: FencedWrites;
      timeoutMs: number;
      log: Logger;
      /** The record changed: halted rollouts look again. */
      onChange: () => void;
    },
  ) {}

  record(node: string, revision: string): void {
    this.#set(revision).add(node);
    const { writes, keys } = this.options;
    writes.write(node, keys.failure(revision, node), JSON.stringify({ node, revision, at: new Date().toISOString() }));
  }

  clear(node: string, revision: string): void {
    this.#failed.get(revision)?.delete(node);
    this.options.writes.write(node, this.options.keys.failure(revision, node), null);
  }

  list(revision: string): string[] {
    return [...(this.#failed.get(revision) ?? [])];
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => void this.refresh().catch(() => undefined), everyMs);
    this.#timer.unref();
    void this.refresh().catch(() => undefined);
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  async refresh(): Promise<void> {
    const { client, keys, timeoutMs } = this.options;
    const raw = await within(client.getAll().prefix(keys.failures()).keys(), timeoutMs, 'failures');
    const next = new Map<string, Set<string>>();
    for (const key of raw) {
      const [revision, node] = key.slice(keys.failures().length).split('/');
      if (!revision || !node) continue;
      const set = next.get(revision) ?? new Set<string>();
      set.add(node);
      next.set(revision, set);
    }
    const before = [...this.#failed].flatMap(([r, nodes]) => [...nodes].map((n) => `${r}/${n}`)).sort();
    const after = [...next].flatMap(([r, nodes]) => [...nodes].map((n) => `${r}/${n}`)).sort();
    this.#failed = next;
    if (before.join('\0') !== after.join('\0')) {
      this.options.log.info({ failed: after }, 'cluster: failure budget record');
      this.options.onChange();
    }
  }

  #set(revision: string): Set<string> {
    const set = this.#failed.get(revision) ?? new Set<string>();
    this.#failed.set(revision, set);
    return set;
  }
}
