// Rollout safety: the disruption budget (how many nodes may have their data plane down at once) and the
// failure budget (how many nodes may fail on one revision before its rollout halts).

import type { StatusStore } from './status-store.js';
import { DisruptionBudget } from './work-queue.js';

export interface RolloutOptions {
  /** maxUnavailable, as a count. */
  maxUnavailable: number;
  /** Failed nodes on one revision that halt its rollout. */
  failureBudget: number;
  /** A node took a slot (its data plane goes down), or gave it back. */
  onHold?: (node: string, held: boolean) => void;
  /** A node starts waiting for a slot, or its wait ends: the status page says so. */
  onWait?: (node: string, waiting: { revision: string; reason: string } | undefined) => void;
  /** The budget's slots beyond this process (coordination.ts): a node takes one of those too. */
  slots: SharedSlots;
  /** The failure budget's record beyond this process: failures there count here too. */
  failures: SharedFailures;
}

/** The failure budget's record beyond this process (cluster mode: every member's): failed nodes by revision. */
export interface SharedFailures {
  record(node: string, revision: string): void;
  clear(node: string, revision: string): void;
  /** The failed nodes of `revision` as last read. */
  list(revision: string): string[];
  /** The revisions with a failure recorded, as last read. */
  revisions(): string[];
  /** Reads the record now (after taking a slot: a failure recorded before the slot was freed is seen). */
  refresh(): Promise<void>;
}

/** Disruption budget slots beyond this process: one is taken after the local slot, given back with it. */
export interface SharedSlots {
  /** Waits for one of `limit` slots; `onWait` says who holds them while it waits. */
  acquire(node: string, limit: number, signal?: AbortSignal, onWait?: (holders: string[]) => void): Promise<void>;
  /** Takes a slot if one is free, without waiting (a node found mid-reboot is down already). */
  take(node: string, limit: number): void;
  /** Gives back the node's slot, if it holds one (taken here, or inherited with the node). */
  release(node: string): void;
}

/** A halt an operator released: when, and which failed nodes no longer counted from then on. */
export interface Resumed {
  at: string;
  released: string[];
}

/** Who holds the disruption budget's slots, as a clause: "a, b hold it", "a holds it". */
const holdIt = (holders: readonly string[]) => `${holders.join(', ')} ${holders.length === 1 ? 'holds' : 'hold'} it`;

export class Rollout {
  readonly #budget: DisruptionBudget;
  readonly #failed = new Map<string, Set<string>>();
  /** Nodes waiting on a halted revision: woken when one of its failures clears. */
  readonly #halted = new Map<string, (() => void)[]>();
  /** Halts an operator released (`rollout resume`), by revision: when, and the failed nodes released. */
  readonly #resumed = new Map<string, Resumed>();

  constructor(private options: RolloutOptions) {
    this.#budget = new DisruptionBudget(options.maxUnavailable);
  }

  /** The policy of a new revision. */
  configure(maxUnavailable: number, failureBudget: number): void {
    this.options = { ...this.options, maxUnavailable, failureBudget };
    this.#budget.resize(maxUnavailable);
  }

  get holders(): string[] {
    return this.#budget.holders;
  }

  failures(revision: string): string[] {
    const local = this.#failed.get(revision) ?? [];
    return [...new Set([...local, ...this.options.failures.list(revision)])].sort();
  }

  /** The shared failure record changed (another member's node failed or recovered): halted waiters look again. */
  refresh(): void {
    for (const waiters of this.#halted.values()) for (const wake of waiters.splice(0)) wake();
  }

  isHalted(revision: string): boolean {
    return this.failures(revision).length >= this.options.failureBudget;
  }

  /** Halted for `node`: its own failure does not stop it from trying again (a reconcile after a fix). */
  #haltedFor(node: string, revision: string): boolean {
    return this.failures(revision).filter((n) => n !== node).length >= this.options.failureBudget;
  }

  /**
   * Waits until `node` may take its data plane down for `revision`: a slot of the budget is free and the
   * revision's rollout is not halted. A halted rollout waits until the signal aborts (a new revision).
   */
  async acquire(node: string, revision: string, signal?: AbortSignal): Promise<void> {
    if (this.#budget.holders.includes(node)) return;
    while (this.#haltedFor(node, revision)) {
      this.options.onWait?.(node, { revision, reason: this.#haltReason(revision) });
      await this.#changed(revision, signal);
    }
    if (this.#budget.holders.length >= this.#budget.limit)
      this.options.onWait?.(node, {
        revision,
        reason: `waits for the disruption budget (maxUnavailable ${this.#budget.limit}): ${holdIt(this.holders)}`,
      });
    const granted = this.#budget.acquire(node);
    let aborted = false;
    const onAbort = () => {
      aborted = true;
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    await granted;
    signal?.removeEventListener('abort', onAbort);
    this.options.onWait?.(node, undefined);
    // Left the state that asked while waiting: the slot goes straight to the next node.
    if (aborted) {
      this.#budget.release(node);
      throw signal?.reason ?? new Error('aborted');
    }
    // The rollout may have halted while this node waited for its slot.
    if (this.#haltedFor(node, revision)) {
      this.#budget.release(node);
      return this.acquire(node, revision, signal);
    }
    await this.#acquireShared(node, revision, signal);
    // A node of another member failed and freed this slot: its failure was recorded before the slot was.
    await this.options.failures.refresh().catch(() => undefined);
    if (this.#haltedFor(node, revision)) {
      this.#budget.release(node);
      this.options.slots.release(node);
      return this.acquire(node, revision, signal);
    }
    this.options.onHold?.(node, true);
  }

  async #acquireShared(node: string, revision: string, signal?: AbortSignal): Promise<void> {
    const limit = this.#budget.limit;
    let waited = false;
    try {
      await this.options.slots.acquire(node, limit, signal, (holders) => {
        waited = true;
        this.options.onWait?.(node, {
          revision,
          reason: `waits for the disruption budget (maxUnavailable ${limit}, cluster-wide): ${holdIt(holders)}`,
        });
      });
    } catch (err) {
      this.#budget.release(node);
      throw err;
    } finally {
      if (waited) this.options.onWait?.(node, undefined);
    }
  }

  /** Takes a slot without waiting: a node found mid-reboot after a restart is down whatever the budget says. */
  hold(node: string): void {
    if (this.#budget.holders.includes(node)) return;
    this.#budget.take(node);
    this.options.slots.take(node, this.#budget.limit);
    this.options.onHold?.(node, true);
  }

  release(node: string): void {
    // A cluster-wide slot may be the node's without a local one: inherited from the node's last owner.
    this.options.slots.release(node);
    if (!this.#budget.holders.includes(node)) return;
    this.#budget.release(node);
    this.options.onHold?.(node, false);
  }

  /** A node stalled on `revision`; returns true when this failure halts the revision's rollout. */
  recordFailure(node: string, revision: string): boolean {
    const before = this.isHalted(revision);
    const set = this.#failed.get(revision) ?? new Set();
    set.add(node);
    this.#failed.set(revision, set);
    this.options.failures.record(node, revision);
    return !before && this.isHalted(revision);
  }

  /**
   * The node converged, on whatever revision it now has: a fix or a revert of its failing pin counts as its
   * recovery on every revision it had failed on, so the rollouts it halted go on (docs/operations.md, "Rollouts
   * and halts"). A node removed from the inventory is let go of the same way.
   */
  recovered(node: string): void {
    for (const revision of new Set([...this.#failed.keys(), ...this.options.failures.revisions()])) this.#clear(node, revision);
  }

  /**
   * `groundcrew rollout resume`: the failures recorded so far on `revision` no longer count, so its held nodes go
   * on (the failed ones stay as they are). A node that fails on it from now on counts again. Returns the nodes
   * released; none when the rollout is not halted.
   */
  resume(revision: string, at = new Date()): string[] {
    if (!this.isHalted(revision)) return [];
    const released = this.failures(revision);
    for (const node of released) this.#clear(node, revision);
    this.#resumed.set(revision, { at: at.toISOString(), released });
    return released;
  }

  /** The last time an operator released `revision`'s halt, if one did. */
  resumed(revision: string): Resumed | undefined {
    return this.#resumed.get(revision);
  }

  #clear(node: string, revision: string): void {
    const shared = this.options.failures.list(revision).includes(node);
    if (shared) this.options.failures.clear(node, revision);
    // Halted waiters look again only when a failure was cleared (here, or in the record beyond this process).
    if (!this.#failed.get(revision)?.delete(node) && !shared) return;
    if (this.#failed.get(revision)?.size === 0) this.#failed.delete(revision);
    for (const wake of this.#halted.get(revision)?.splice(0) ?? []) wake();
  }

  #changed(revision: string, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const waiters = this.#halted.get(revision) ?? [];
      this.#halted.set(revision, waiters);
      const stop = () => reject(signal?.reason ?? new Error('aborted'));
      signal?.addEventListener('abort', stop, { once: true });
      waiters.push(() => {
        signal?.removeEventListener('abort', stop);
        resolve();
      });
    });
  }

  #haltReason(revision: string): string {
    return `rollout of ${revision.slice(0, 12)} halted: ${this.failures(revision).join(', ')} failed on it (failure budget ${this.options.failureBudget})`;
  }

  haltReason(revision: string): string | undefined {
    return this.isHalted(revision) ? this.#haltReason(revision) : undefined;
  }
}

/** The reconciler's rollout: each slot taken or given back, and each wait, shown in the node's status. */
export function shownRollout(
  status: StatusStore,
  { slots, failures }: { slots: SharedSlots; failures: SharedFailures },
  known: (node: string) => boolean,
): Rollout {
  return new Rollout({
    maxUnavailable: 1,
    failureBudget: 1,
    slots,
    failures,
    onHold: (node, held) =>
      status.note(
        node,
        held ? 'disruption.started' : 'disruption.ended',
        held ? 'takes its data plane down (disruption budget slot taken)' : 'disruption budget slot given back',
      ),
    onWait: (node, waiting) => {
      if (known(node)) status.update(node, { name: node, ...(waiting ? { waiting: waiting.reason } : { waiting: undefined }) });
    },
  });
}
