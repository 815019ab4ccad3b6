// The disruption budget across members: maxUnavailable numbered slots in etcd, each a key created only if
// absent, under the holder's lease (a dead member's slots go with its lease). A node takes a free slot in
// a transaction, or waits and looks again; it gives the slot back by deleting the key it created.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Etcd3 } from 'etcd3';
import type { Logger } from 'pino';
import type { GlobalSlots } from '../reconciler/rollout.js';
import type { ClusterKeys } from './etcd.js';
import { type Membership, within } from './membership.js';

export class GlobalBudget implements GlobalSlots {
  /** Slot keys this member holds, by node, with the value it wrote. */
  readonly #held = new Map<string, { key: string; value: string }>();
  /** Nodes asking for a slot now: a key of theirs may exist before the answer that says so arrives. */
  readonly #asking = new Set<string>();

  constructor(private readonly options: { client: Etcd3; keys: ClusterKeys; membership: Membership; log: Logger }) {
    options.membership.on('lost', () => this.#held.clear());
  }

  async acquire(node: string, limit: number, signal?: AbortSignal, onWait?: (holders: string[]) => void): Promise<void> {
    if (this.#held.has(node)) return;
    this.#asking.add(node);
    try {
      await this.#wait(node, limit, signal, onWait);
    } finally {
      this.#asking.delete(node);
    }
  }

  async #wait(node: string, limit: number, signal?: AbortSignal, onWait?: (holders: string[]) => void): Promise<void> {
    const everyMs = this.options.membership.options.ttlMs / 6;
    for (let waited = false; ; waited = true) {
      signal?.throwIfAborted();
      const holders = await this.#tryTake(node, limit).catch((err: Error) => {
        this.options.log.warn({ node, err: err.message }, 'cluster: budget slot not taken');
        return ['(etcd unreachable)'];
      });
      if (holders === undefined) return;
      if (!waited) onWait?.(holders);
      await sleep(everyMs, undefined, signal ? { signal } : {});
    }
  }

  take(node: string, limit: number): void {
    void this.#tryTake(node, limit).catch(() => undefined);
  }

  release(node: string): void {
    const held = this.#held.get(node);
    if (!held) return;
    this.#held.delete(node);
    void this.#giveBack(node, held);
  }

  /** Deletes the slot key this member wrote, trying again while etcd does not answer (the lease would keep it). */
  async #giveBack(node: string, held: { key: string; value: string }): Promise<void> {
    const { client, membership, log } = this.options;
    const everyMs = membership.options.ttlMs / 6;
    for (let attempt = 1; membership.leaseId !== undefined; attempt++) {
      try {
        await within(client.if(held.key, 'Value', '==', held.value).then(client.delete().key(held.key)).commit(), everyMs * 2, 'slot');
        return;
      } catch (err) {
        if (attempt === 1) log.warn({ node, err: (err as Error).message }, 'cluster: budget slot not given back yet; trying again');
        await sleep(everyMs);
      }
    }
  }

  /** Takes a free slot: undefined once taken, else the nodes holding the slots. */
  async #tryTake(node: string, limit: number): Promise<string[] | undefined> {
    const { client, keys, membership } = this.options;
    const lease = membership.leaseId;
    const timeoutMs = membership.options.ttlMs / 3;
    if (!lease || !membership.mayIssue()) return ['(this member is fenced)'];
    const raw = await within(client.getAll().prefix(keys.slots()).strings(), timeoutMs, 'budget');
    const value = JSON.stringify({ node, member: membership.name });
    // A slot of this member's that no node holds (taken by an answer that came too late): given back.
    for (const [key, text] of Object.entries(raw)) {
      const slot = JSON.parse(text) as { node: string; member: string };
      if (slot.member !== membership.name || slot.node === node || this.#held.has(slot.node) || this.#asking.has(slot.node)) continue;
      void this.#giveBack(slot.node, { key, value: text });
      delete raw[key];
    }
    for (let i = 0; i < limit; i++) {
      const key = keys.slot(i);
      const current = raw[key];
      if (current === value) {
        this.#held.set(node, { key, value });
        return undefined;
      }
      if (current !== undefined) continue;
      const taken = await within(
        client.if(key, 'Create', '==', 0).then(client.put(key).value(value).lease(lease)).commit(),
        timeoutMs,
        'budget slot',
      );
      if (taken.succeeded) {
        this.#held.set(node, { key, value });
        return undefined;
      }
    }
    return Object.values(raw).map((v) => (JSON.parse(v) as { node: string }).node);
  }
}
