// The failure budget across members: a node that fails on a revision is recorded at
// `<prefix>failures/<revision>/<node>` by its owner (a fenced write: a transaction on its owner key), and
// cleared by whoever owns it when it recovers. Every member counts every member's failures, so a revision's
// rollout halts cluster-wide once the budget is spent. The record is under no lease: a failure outlives the
// member that saw it, as a stalled node outlives its owner.
//
// Records of revisions no longer needed are cleared by the leader (`retire`): a revision's records go once it is
// not the revision in force and no node of the revision in force is still on it (its desired revision, as the
// leader's status page shows every node), seen so for `graceMs` at least. Not the revision in force alone: a
// commit that does not touch a node leaves it on the revision it was on, and that revision's budget (halted or
// not) still governs it. The leader, not each owner for its own nodes: whether a revision is still needed is a
// question about every node, and one member deleting means no member deletes what another just recorded (each
// delete compares the record's mod revision with the one read). Deletes go 64 records to a transaction (64
// compares and 64 deletes: 128 operations, etcd's --max-txn-ops).

import type { IKeyValue } from 'etcd3';
import type { SharedFailures } from '../reconciler/rollout.js';
import type { StatusStore } from '../reconciler/status-store.js';
import type { ClusterContext } from './etcd.js';
import { FailureSchema, parseJson } from './etcd-values.js';
import type { FencedWrites } from './fenced-writes.js';
import { within } from './membership.js';

/** The desired revision of each node as the status store shows it; undefined while one has none (not seen yet). */
export function desiredRevisions(nodes: readonly string[], status: Pick<StatusStore, 'get'>): Set<string> | undefined {
  const revisions = new Set<string>();
  for (const node of nodes) {
    const desired = status.get(node)?.desiredRevision;
    if (desired === undefined) return undefined;
    revisions.add(desired);
  }
  return revisions;
}

/** Records deleted per transaction: a compare and a delete each, 128 operations in all. */
const RETIRE_BATCH = 64;

/** What the leader's clearing of old records reads (cluster-member.ts). */
export interface Retire {
  /** This member leads (only the leader deletes). */
  leads(): boolean;
  /** The sha in force. */
  inForce(): string | undefined;
  /** The desired revision of every node of the revision in force; undefined while some node's is not known yet. */
  needed(): Set<string> | undefined;
  /** How long a revision is seen not needed before its records go: the status view may lag etcd by as much. */
  graceMs: number;
  now?: () => number;
}

export class GlobalFailures implements SharedFailures {
  /** Failed nodes by revision, as last read (with this member's own records and clears in it at once). */
  #failed = new Map<string, Set<string>>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ClusterContext & {
      writes: FencedWrites;
      /** The record changed: halted rollouts look again. */
      onChange: () => void;
      retire?: Retire;
    },
  ) {}

  /** Records deleted as no longer needed, by this member (for tests and the log). */
  retired = 0;
  /** Revisions seen not needed, and since when (ms). */
  readonly #unneededSince = new Map<string, number>();

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

  revisions(): string[] {
    return [...this.#failed].filter(([, nodes]) => nodes.size > 0).map(([revision]) => revision);
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
    const raw = await within(client.getAll().prefix(keys.failures()).strings(), timeoutMs, 'failures');
    const next = new Map<string, Set<string>>();
    for (const [key, value] of Object.entries(raw)) {
      const record = this.#parse(key, value);
      if (!record) continue;
      const { revision, node } = record;
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
    // A failed clearing is only late: the record it would delete is read and judged again at the next pass.
    await this.#retire().catch((err: Error) => this.options.log.warn({ err: err.message }, 'cluster: clearing old failure records failed'));
  }

  /**
   * A record as its owner writes it, under the key it names; else undefined (said once, counted): a planted
   * record must not spend a revision's failure budget.
   */
  #parse(key: string, value: string): { revision: string; node: string } | undefined {
    const { keys, rejected } = this.options;
    const [revision, node, ...more] = key.slice(keys.failures().length).split('/');
    const read = parseJson(value, FailureSchema);
    const why = !read.ok
      ? read.reason
      : read.value.revision !== revision || read.value.node !== node || more.length > 0
        ? `the record of ${read.value.node} on ${read.value.revision.slice(0, 12)} under another key`
        : undefined;
    if (why) {
      rejected.reject('failure', key, value, why);
      return undefined;
    }
    rejected.clear(key);
    return read.ok ? read.value : undefined;
  }

  /** The leader deletes the records of revisions no node needs any more (see the head of this file). */
  async #retire(): Promise<void> {
    const { retire, client, keys, timeoutMs, log } = this.options;
    const inForce = retire?.leads() ? retire.inForce() : undefined;
    const needed = inForce ? retire?.needed() : undefined;
    if (!retire || !inForce || !needed) {
      this.#unneededSince.clear();
      return;
    }
    const now = (retire.now ?? Date.now)();
    const unneeded = [...this.#failed.keys()].filter((r) => r !== inForce && !needed.has(r));
    for (const r of this.#unneededSince.keys()) if (!unneeded.includes(r)) this.#unneededSince.delete(r);
    for (const r of unneeded) if (!this.#unneededSince.has(r)) this.#unneededSince.set(r, now);
    const due = unneeded.filter((r) => now - (this.#unneededSince.get(r) ?? now) >= retire.graceMs);
    for (const revision of due) {
      const res = await within(client.getAll().prefix(`${keys.failures()}${revision}/`).exec(), timeoutMs, 'failures');
      let deleted = 0;
      for (let i = 0; i < res.kvs.length; i += RETIRE_BATCH) deleted += await this.#delete(res.kvs.slice(i, i + RETIRE_BATCH));
      this.retired += deleted;
      this.#unneededSince.delete(revision);
      log.info(
        { revision, inForce, deleted, of: res.kvs.length },
        'cluster: failure records of a revision no node is on any more: deleted',
      );
    }
    if (due.length > 0) await this.refresh();
  }

  /** Deletes records each as it was read; a batch where one changed since deletes nothing (the next pass looks again). */
  async #delete(batch: IKeyValue[]): Promise<number> {
    const { client, timeoutMs } = this.options;
    const [first, ...rest] = batch;
    if (!first) return 0;
    let txn = client.if(first.key.toString(), 'Mod', '==', first.mod_revision);
    for (const kv of rest) txn = txn.and(kv.key.toString(), 'Mod', '==', kv.mod_revision);
    const res = await within(txn.then(...batch.map((kv) => client.delete().key(kv.key.toString()))).commit(), timeoutMs, 'retire failures');
    return res.succeeded ? batch.length : 0;
  }

  #set(revision: string): Set<string> {
    const set = this.#failed.get(revision) ?? new Set<string>();
    this.#failed.set(revision, set);
    return set;
  }
}
