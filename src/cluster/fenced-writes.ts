// Writes of a node's state to etcd, each a transaction that succeeds only while this member still owns the
// node (its owner key holds this member's lease): a member that lost a node can no longer change its record.
// Writes to one key are coalesced (the newest value wins) and kept in order; `flush` waits for a node's.

import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { ClusterKeys } from './etcd.js';
import { within } from './membership.js';

export interface FencedWritesOptions {
  client: Etcd3;
  keys: ClusterKeys;
  /** The owner key's value while this member owns `node`, else undefined (nothing is written). */
  ownerValue: (node: string) => string | undefined;
  timeoutMs: number;
  log: Logger;
}

type Pending = { node: string; value: string | null };

export class FencedWrites {
  readonly #pending = new Map<string, Pending>();
  readonly #running = new Map<string, { node: string; done: Promise<void> }>();

  constructor(private readonly options: FencedWritesOptions) {}

  /** Puts `value` at `key` (null: deletes it) as soon as the writes before it are done. */
  write(node: string, key: string, value: string | null): void {
    this.#pending.set(key, { node, value });
    if (!this.#running.has(key)) this.#running.set(key, { node, done: this.#drain(key) });
  }

  /** Resolves once every write of `node` queued so far is done (or failed). */
  async flush(node: string): Promise<void> {
    for (;;) {
      const waits = [...this.#running.values()].filter((r) => r.node === node).map((r) => r.done);
      if (waits.length === 0) return;
      await Promise.all(waits);
    }
  }

  async #drain(key: string): Promise<void> {
    await Promise.resolve();
    try {
      for (let next = this.#pending.get(key); next; next = this.#pending.get(key)) {
        this.#pending.delete(key);
        const { node } = next;
        await this.#commit(key, next).catch((err: Error) =>
          this.options.log.warn({ node, key, err: err.message }, 'cluster: state write failed'),
        );
      }
    } finally {
      this.#running.delete(key);
    }
  }

  async #commit(key: string, { node, value }: Pending): Promise<void> {
    const { client, keys, ownerValue, timeoutMs, log } = this.options;
    const owner = ownerValue(node);
    if (owner === undefined) return;
    const change = value === null ? client.delete().key(key) : client.put(key).value(value);
    const result = await within(client.if(keys.owner(node), 'Value', '==', owner).then(change).commit(), timeoutMs, 'state write');
    if (!result.succeeded) log.warn({ node, key }, 'cluster: state not written: this member no longer owns the node');
  }
}
