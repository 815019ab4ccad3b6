// Writes of a node's state to etcd, each a transaction that succeeds only while this member still owns the
// node (its owner key holds this member's lease): a member that lost a node can no longer change its record.
// Writes to one key are coalesced (the newest value wins) and kept in order; `flush` waits for a node's.
// A write that does not land while this member still holds the node (the fence closed for a late renewal, an
// etcd call past its deadline) is tried again until it lands: dropped, it left the node's record behind and,
// since no command may go out before its state is recorded, the node refused every command until its machine
// next changed state (a reboot wait then timed out: the HA tests' flake).

import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { ClusterKeys } from './etcd.js';
import { within } from './membership.js';

export interface FencedWritesOptions {
  client: Etcd3;
  keys: ClusterKeys;
  /** The owner key's value while this member owns `node`, else undefined (nothing is written). */
  ownerValue: (node: string) => string | undefined;
  /** This member holds the node's owner key (fenced or not): a write that failed is worth trying again. */
  holds: (node: string) => boolean;
  timeoutMs: number;
  log: Logger;
}

type Pending = { node: string; value: string | null };

export class FencedWrites {
  readonly #pending = new Map<string, Pending>();
  readonly #running = new Map<string, { node: string; done: Promise<void> }>();
  /** Nodes whose last write did not land: nothing more may be sent to them until one does. */
  readonly #failed = new Set<string>();

  constructor(private readonly options: FencedWritesOptions) {}

  /** Puts `value` at `key` (null: deletes it) as soon as the writes before it are done. */
  write(node: string, key: string, value: string | null): void {
    this.#pending.set(key, { node, value });
    if (!this.#running.has(key)) this.#running.set(key, { node, done: this.#drain(key) });
  }

  /** A new tenure: an earlier failure to record is no longer this node's (its state is read afresh). */
  reset(node: string): void {
    this.#failed.delete(node);
  }

  /** Resolves once every write of `node` queued so far is done; false when the last one did not land. */
  async flush(node: string): Promise<boolean> {
    for (;;) {
      const waits = [...this.#running.values()].filter((r) => r.node === node).map((r) => r.done);
      if (waits.length === 0) return !this.#failed.has(node);
      await Promise.all(waits);
    }
  }

  async #drain(key: string): Promise<void> {
    await Promise.resolve();
    try {
      for (let next = this.#pending.get(key), attempt = 1; next; next = this.#pending.get(key)) {
        this.#pending.delete(key);
        const { node } = next;
        const landed = await this.#commit(key, next).catch((err: Error) => {
          if (attempt === 1) this.options.log.warn({ node, key, err: err.message }, 'cluster: state write failed; trying again');
          return false;
        });
        if (landed) {
          this.#failed.delete(node);
          attempt = 1;
          continue;
        }
        if (!this.options.holds(node)) {
          // The node is another member's now (or will be): its record is theirs to write.
          this.#failed.add(node);
          attempt = 1;
          continue;
        }
        // Still this member's: the same value again (unless a newer one was queued meanwhile), after a pause.
        if (!this.#pending.has(key)) this.#pending.set(key, next);
        attempt++;
        await sleep(Math.min(this.options.timeoutMs, 50 * attempt));
      }
    } finally {
      this.#running.delete(key);
    }
  }

  async #commit(key: string, { node, value }: Pending): Promise<boolean> {
    const { client, keys, ownerValue, timeoutMs, log } = this.options;
    // Undefined while fenced, or once the node is not this member's.
    const owner = ownerValue(node);
    if (owner === undefined) return false;
    const change = value === null ? client.delete().key(key) : client.put(key).value(value);
    const result = await within(client.if(keys.owner(node), 'Value', '==', owner).then(change).commit(), timeoutMs, 'state write');
    if (!result.succeeded) log.warn({ node, key }, 'cluster: state not written: this member no longer owns the node');
    return result.succeeded;
  }
}
