// The disruption budget across members: maxUnavailable numbered slots in etcd, each `{ node, member, lease }`,
// created only if absent. A slot belongs to the node, not to the member: it is under no lease, so a member that
// dies with a node down leaves the slot in place, and the node's next owner inherits it (`adopt`) and gives it
// back when the node settles. (Under the holder's lease, a slot went with a dead member while its node was still
// rebooting, and another node could go down at once: two down with maxUnavailable 1.)

import { setTimeout as sleep } from 'node:timers/promises';
import type { SharedSlots } from '../reconciler/rollout.js';
import type { ClusterContext } from './etcd.js';
import { parseJson, SlotSchema } from './etcd-values.js';
import { type Membership, within } from './membership.js';
import { SharedRead } from './shared-read.js';

/** A slot as read: its holder, and the value as etcd has it (what a transaction on it compares). */
interface Slot {
  node: string;
  member: string;
  lease: string;
  text: string;
}

/** A value that is not a slot (planted or broken) still holds its slot, by nobody known: the budget counts it. */
const UNREADABLE = '(unreadable slot)';

export interface GlobalBudgetOptions extends Omit<ClusterContext, 'timeoutMs'> {
  membership: Membership;
  /** The nodes of the revision in force, and who owns each: a slot of a node in neither is stale. */
  nodes: () => readonly string[];
  owned: (node: string) => boolean;
  /** Resolves once the node's state writes queued so far are done (a failure it recorded lands before its slot is freed). */
  flushed?: (node: string) => Promise<unknown>;
}

export class GlobalBudget implements SharedSlots {
  /** Slot keys this member holds, by node, with the value it wrote. */
  readonly #held = new Map<string, { key: string; value: string }>();
  /** Nodes asking for (or adopting) a slot now: a key of theirs may exist before the answer that says so arrives. */
  readonly #asking = new Set<string>();
  /** Nodes in the middle of creating a slot: no more of them than slots were free at the last read. */
  #taking = 0;
  /** Stale slots being given back (once, however many nodes' reads found them). */
  readonly #givingBack = new Set<string>();
  readonly #reads = new SharedRead(() => this.#readSlots());

  constructor(private readonly options: GlobalBudgetOptions) {
    options.membership.on('lost', () => this.#held.clear());
  }

  /** Range reads of the slots made, for tests and the benchmark. */
  get reads(): number {
    return this.#reads.count;
  }

  /**
   * Slots by key, as etcd has them at a read started after this call: the nodes asking at once (thousands when a
   * member takes its nodes, or a rollout waits on the budget) share one read instead of one each (issue 19).
   */
  #slots(): Promise<Record<string, Slot>> {
    return this.#reads.get().then((slots) => ({ ...slots }));
  }

  async #readSlots(): Promise<Record<string, Slot>> {
    const { client, keys, membership } = this.options;
    const raw = await within(client.getAll().prefix(keys.slots()).strings(), membership.options.ttlMs / 3, 'budget');
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, this.#parse(k, v)]));
  }

  #value(node: string): string | undefined {
    const { membership } = this.options;
    if (!membership.leaseId || !membership.mayIssue()) return undefined;
    return JSON.stringify({ node, member: membership.name, lease: membership.leaseId });
  }

  /**
   * A node this member just took over: a slot its last owner took for it (the node is still down, or may be)
   * becomes this member's, given back when the node settles here. Called before the node is driven.
   */
  async adopt(node: string): Promise<void> {
    this.#asking.add(node);
    try {
      await this.#adopt(node, await this.#slots());
    } finally {
      this.#asking.delete(node);
    }
  }

  async #adopt(node: string, slots: Record<string, Slot>): Promise<void> {
    const found = Object.entries(slots).find(([, s]) => s.node === node);
    const value = this.#value(node);
    if (!found || !value) return;
    const [key, slot] = found;
    const { client, membership, log } = this.options;
    const res = await within(
      client.if(key, 'Value', '==', slot.text).then(client.put(key).value(value)).commit(),
      membership.options.ttlMs / 3,
      'budget slot',
    );
    if (!res.succeeded) return;
    this.#held.set(node, { key, value });
    if (slot.member !== membership.name || slot.lease !== membership.leaseId)
      log.info({ node, from: slot.member }, 'cluster: the node still holds a disruption slot: inherited');
  }

  /** A slot's value, checked (one that is not a slot is said once, counted, and held by nobody known). */
  #parse(key: string, text: string): Slot {
    const read = parseJson(text, SlotSchema);
    if (read.ok) {
      this.options.rejected.clear(key);
      return { ...read.value, text };
    }
    this.options.rejected.reject('slot', key, text, read.reason);
    return { node: UNREADABLE, member: '', lease: '', text };
  }

  /** Whether this member holds a slot for `node` (taken or inherited). */
  holds(node: string): boolean {
    return this.#held.has(node);
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
    if (this.#held.has(node)) return;
    void this.#tryTake(node, limit).catch(() => undefined);
  }

  /** The node settled here: its slot (taken or inherited) is given back. */
  release(node: string): void {
    const held = this.#held.get(node);
    if (!held) return;
    this.#held.delete(node);
    void this.#giveBack(node, held);
  }

  /**
   * Deletes a slot whose value is still the one this member wrote (under its lease of now: a member that lost
   * its lease and came back never gives back a slot its node's next owner inherited), trying again while etcd
   * does not answer.
   */
  async #giveBack(
    node: string,
    held: { key: string; value: string },
    lease = (JSON.parse(held.value) as { lease: string }).lease,
  ): Promise<void> {
    const { client, membership, log } = this.options;
    const everyMs = membership.options.ttlMs / 6;
    await this.options.flushed?.(node);
    for (let attempt = 1; membership.leaseId === lease; attempt++) {
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
    const { membership, log } = this.options;
    const value = this.#value(node);
    if (!value) return ['(this member is fenced)'];
    const slots = await this.#slots();
    const nodes = new Set(this.options.nodes());
    for (const [key, slot] of Object.entries(slots)) {
      const { text } = slot;
      // Taken by an answer that came too late (this lease, no node of this member's holds or asks for it),
      // or stale (its node left the inventory and nobody owns it): given back.
      const late = slot.lease === membership.leaseId && !this.#held.has(slot.node) && !this.#asking.has(slot.node);
      const stale = nodes.size > 0 && !nodes.has(slot.node) && !this.options.owned(slot.node);
      if (slot.node === node || !(late || stale)) continue;
      delete slots[key];
      if (this.#givingBack.has(key)) continue;
      if (stale) log.info({ node: slot.node }, 'cluster: a disruption slot of a node no longer in the inventory given back');
      this.#givingBack.add(key);
      void this.#giveBack(slot.node, { key, value: text }, membership.leaseId)
        .catch(() => undefined)
        .finally(() => this.#givingBack.delete(key));
    }
    const mine = Object.entries(slots).find(([, s]) => s.node === node);
    if (mine) {
      // Its own slot (a late answer, or one its last owner took): this member's now.
      await this.#adopt(node, slots);
      return this.#held.has(node) ? undefined : [node];
    }
    // Every slot counts, numbered past the limit or not (the limit may have shrunk with a new revision). As many
    // nodes try as slots were free: the others wait for the next read rather than each losing a transaction.
    const free = limit - Object.keys(slots).length;
    if (free > 0 && this.#taking < free) {
      this.#taking++;
      try {
        return await this.#create(node, limit, slots, value);
      } finally {
        this.#taking--;
      }
    }
    return Object.values(slots).map((s) => s.node);
  }

  /** Creates the first free slot key for `node`: undefined once taken, else the nodes holding the slots read. */
  async #create(node: string, limit: number, slots: Record<string, Slot>, value: string): Promise<string[] | undefined> {
    const { client, keys, membership } = this.options;
    for (let i = 0; i < limit; i++) {
      const key = keys.slot(i);
      if (slots[key] !== undefined) continue;
      const taken = await within(
        client.if(key, 'Create', '==', 0).then(client.put(key).value(value)).commit(),
        membership.options.ttlMs / 3,
        'budget slot',
      );
      if (taken.succeeded) {
        this.#held.set(node, { key, value });
        return undefined;
      }
    }
    return Object.values(slots).map((s) => s.node);
  }
}
