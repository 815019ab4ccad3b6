// Writes of nodes' state to etcd, in transactions that succeed only while this member still owns each node
// (its owner key holds this member's lease): a member that lost a node can no longer change its record.
// Writes to one key are coalesced (the newest value wins) and kept in order; `flush` waits for a node's.
// A write that does not land while this member still holds the node (the fence closed for a late renewal, an
// etcd call past its deadline) is tried again until it lands: dropped, it left the node's record behind and,
// since no command may go out before its state is recorded, the node refused every command until its machine
// next changed state (a reboot wait then timed out: the HA tests' flake).
//
// Batched: the writes queued in one turn of the event loop (and those queued while earlier batches are out)
// go in one transaction for many nodes: a compare per node (its owner key == this member's value), then the
// puts and deletes. One transaction per node each was what 10,000 nodes could not get through (issue 19: writes
// timed out at 3.3 s). A batch stays within etcd's `--max-txn-ops` (128 by default; etcd checks the compares,
// the success ops and the failure ops each against it) and under its request limit (`--max-request-bytes`,
// 1.5 MiB). When a compare fails, the failure branch reads every owner key of the batch: the nodes this member
// lost are known, their writes fail as before, and the others' go again at once in the next batch; a node whose
// compare failed is sent alone until one of its writes lands, so it cannot fail its neighbours' again.

import type { ClusterContext } from './etcd.js';
import { within } from './membership.js';
import { type Entry, StateBatch } from './state-batch.js';

export interface FencedWritesOptions extends Omit<ClusterContext, 'rejected'> {
  /** The owner key's value while this member owns `node`, else undefined (nothing is written). */
  ownerValue: (node: string) => string | undefined;
  /** This member holds the node's owner key (fenced or not): a write that failed is worth trying again. */
  holds: (node: string) => boolean;
  /** Compares (and ops) in one transaction at most: etcd's `--max-txn-ops` (128 by default). */
  maxTxnOps?: number;
  /** Bytes of keys and values in one transaction at most, under etcd's `--max-request-bytes` (1.5 MiB). */
  maxTxnBytes?: number;
  /** Transactions out at once. */
  maxInFlight?: number;
}

export class FencedWrites {
  /** The newest value not yet sent, by key (a key in flight waits here for its batch's answer). */
  readonly #pending = new Map<string, Entry>();
  readonly #inFlight = new Set<string>();
  /** Writes queued or out, by node, and who waits for them to be done. */
  readonly #open = new Map<string, number>();
  readonly #waiters = new Map<string, (() => void)[]>();
  /** Nodes whose last write did not land: nothing more may be sent to them until one does. */
  readonly #failed = new Set<string>();
  /** Nodes whose owner compare failed in a batch: sent alone until a write of theirs lands. */
  readonly #alone = new Set<string>();
  #batches = 0;
  #soon: NodeJS.Immediate | undefined;
  #later: { timer: NodeJS.Timeout; at: number } | undefined;
  /** Transactions sent and the writes they carried, for tests and the benchmark. */
  readonly sent = { transactions: 0, writes: 0 };

  /** The limits in force: halved when etcd says a batch was past its own (an etcd configured below the defaults). */
  #maxOps: number;
  #maxBytes: number;

  constructor(private readonly options: FencedWritesOptions) {
    this.#maxOps = options.maxTxnOps ?? 128;
    this.#maxBytes = options.maxTxnBytes ?? 1024 * 1024;
  }

  /** Puts `value` at `key` (null: deletes it) as soon as the writes before it are done. */
  write(node: string, key: string, value: string | null): void {
    const before = this.#pending.get(key);
    this.#open.set(node, (this.#open.get(node) ?? 0) + 1);
    this.#pending.set(key, { node, key, value, attempt: before?.attempt ?? 1, notBefore: before?.notBefore ?? 0 });
    // The value it replaces is done (counted after the new one: a flush waiting on the node must not wake now).
    if (before) this.#done(before.node);
    this.#schedule();
  }

  /** A new tenure: an earlier failure to record is no longer this node's (its state is read afresh). */
  reset(node: string): void {
    this.#failed.delete(node);
    this.#alone.delete(node);
  }

  /** Resolves once every write of `node` queued so far is done; false when the last one did not land. */
  async flush(node: string): Promise<boolean> {
    if ((this.#open.get(node) ?? 0) > 0) {
      await new Promise<void>((resolve) => this.#waiters.set(node, [...(this.#waiters.get(node) ?? []), resolve]));
    }
    return !this.#failed.has(node);
  }

  /** A write of `node` is done (landed, given up, or replaced by a newer one). */
  #done(node: string): void {
    const left = (this.#open.get(node) ?? 1) - 1;
    if (left > 0) {
      this.#open.set(node, left);
      return;
    }
    this.#open.delete(node);
    const waiters = this.#waiters.get(node) ?? [];
    this.#waiters.delete(node);
    for (const resolve of waiters) resolve();
  }

  #schedule(): void {
    if (this.#soon || this.#pending.size === 0) return;
    this.#soon = setImmediate(() => {
      this.#soon = undefined;
      this.#pump();
    });
  }

  /** Sends what is due, in as many batches as may be out at once; wakes again for what waits out a pause. */
  #pump(): void {
    const { maxInFlight = 4 } = this.options;
    let nextDue = Number.POSITIVE_INFINITY;
    while (this.#batches < maxInFlight) {
      const { batch, due } = this.#collect();
      nextDue = Math.min(nextDue, due);
      if (batch.entries.length === 0) break;
      this.#batches++;
      void this.#send(batch).finally(() => {
        this.#batches--;
        this.#schedule();
      });
    }
    if (Number.isFinite(nextDue) && (!this.#later || this.#later.at > nextDue)) {
      if (this.#later) clearTimeout(this.#later.timer);
      const timer = setTimeout(
        () => {
          this.#later = undefined;
          this.#pump();
        },
        Math.max(1, nextDue - performance.now()),
      );
      this.#later = { timer, at: nextDue };
    }
  }

  /** The next batch of due writes, and when the first one still pausing is due. */
  #collect(): { batch: StateBatch; due: number } {
    const { ownerValue, keys } = this.options;
    const now = performance.now();
    const batch = new StateBatch(keys, this.#maxOps, this.#maxBytes);
    const refused: Entry[] = [];
    let due = Number.POSITIVE_INFINITY;
    for (const entry of this.#pending.values()) {
      if (this.#inFlight.has(entry.key)) continue;
      if (entry.notBefore > now) {
        due = Math.min(due, entry.notBefore);
        continue;
      }
      const alone = this.#alone.has(entry.node);
      if (!batch.accepts(entry.node, alone)) continue;
      // Undefined while fenced, or once the node is not this member's.
      const owner = ownerValue(entry.node);
      if (owner === undefined) {
        refused.push(entry);
        continue;
      }
      if (!batch.add(entry, owner, alone)) break;
    }
    for (const entry of [...batch.entries, ...refused]) {
      this.#pending.delete(entry.key);
      this.#inFlight.add(entry.key);
    }
    for (const entry of refused) this.#settle(entry, false);
    if (refused.length > 0) due = Math.min(due, ...refused.map((e) => e.notBefore));
    return { batch, due };
  }

  async #send(batch: StateBatch): Promise<void> {
    const { client, timeoutMs, log } = this.options;
    this.sent.transactions++;
    this.sent.writes += batch.entries.length;
    let lost: Set<string>;
    try {
      const result = await within(client.kv.txn(batch.request()), timeoutMs, 'state write');
      lost = batch.lost(result);
    } catch (err) {
      this.#shrink(batch, (err as Error).message);
      const [first] = batch.entries;
      if (first?.attempt === 1)
        log.warn(
          { node: first.node, key: first.key, writes: batch.entries.length, err: (err as Error).message },
          'cluster: state write failed; trying again',
        );
      for (const entry of batch.entries) this.#settle(entry, false);
      return;
    }
    for (const node of lost) {
      log.warn({ node }, 'cluster: state not written: this member no longer owns the node');
      this.#alone.add(node);
    }
    // Landed, or (the batch failed for another node's compare) not sent: the latter go again at once.
    const landed = lost.size === 0;
    for (const entry of batch.entries) this.#settle(entry, landed, !lost.has(entry.node));
  }

  /** etcd refused the batch for its size (its --max-txn-ops or --max-request-bytes set lower): smaller ones from now. */
  #shrink(batch: StateBatch, message: string): void {
    if (batch.entries.length < 2) return;
    const ops = /too many operations/i.test(message);
    const bytes = /request is too large/i.test(message);
    if (!ops && !bytes) return;
    if (ops) this.#maxOps = Math.max(1, Math.floor(Math.min(this.#maxOps, batch.entries.length) / 2));
    if (bytes) this.#maxBytes = Math.max(1024, Math.floor(this.#maxBytes / 2));
    this.options.log.warn(
      { maxTxnOps: this.#maxOps, maxTxnBytes: this.#maxBytes, err: message },
      'cluster: etcd refused a batch of state writes as too big: smaller batches from now (check etcd --max-txn-ops and --max-request-bytes)',
    );
  }

  /**
   * The answer for one write: landed, or not. One that did not land goes again (unless a newer value for its
   * key is queued) while this member holds its node: after a pause when it was its own failure, at once when
   * `innocent` (its batch failed on another node's compare).
   */
  #settle(entry: Entry, landed: boolean, innocent = false): void {
    const { holds, timeoutMs } = this.options;
    this.#inFlight.delete(entry.key);
    const { node, key } = entry;
    if (landed) {
      this.#failed.delete(node);
      this.#alone.delete(node);
      this.#done(node);
      return;
    }
    if (!holds(node)) {
      // The node is another member's now (or will be): its record is theirs to write.
      this.#failed.add(node);
      this.#done(node);
      return;
    }
    const notBefore = innocent ? 0 : performance.now() + Math.min(timeoutMs, 50 * (entry.attempt + 1));
    const attempt = innocent ? entry.attempt : entry.attempt + 1;
    const newer = this.#pending.get(key);
    if (newer) {
      // The newer value goes instead, after the same pause.
      newer.attempt = Math.max(newer.attempt, attempt);
      newer.notBefore = Math.max(newer.notBefore, notBefore);
      this.#done(node);
    } else {
      this.#pending.set(key, { ...entry, attempt, notBefore });
    }
    this.#schedule();
  }
}
