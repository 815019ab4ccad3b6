// How many node machines run at once: a node that would leave a settled state (new, asked something new, asked
// to reconcile, resynced, woken by a gate) first waits for a place in the window; it holds the place until it
// settles again. Measured at 10,000 nodes (docs/BENCHMARKS.md, issue 18): with every machine started at once,
// the live heap in mid-converge held about 5,000 nodes' open run reports, actors and worker waits (the daemon's
// peak RSS twice the target); the workers serve only `concurrency` at a time anyway.

import type { NodeSpec } from '../inventory/desired-state.js';
import { StartPacer } from './start-pacer.js';
import type { StatusStore } from './status-store.js';

/** How long a node keeps its place without settling (a node waiting out a gate or a budget frees it then). */
export const RUN_HOLD_MS = 300_000;

export class RunWindow {
  readonly #pacer: StartPacer | undefined;
  /** Let through and not yet synced: their next sync may start them. */
  readonly #admitted = new Set<string>();

  /** `size` places (none: unbounded); `admit` is called with each node let through, to sync it. */
  constructor(size: number | undefined, admit: (node: string) => void, holdMs = RUN_HOLD_MS) {
    if (!size) return;
    this.#pacer = new StartPacer({ window: size, holdMs }, (nodes) => {
      for (const node of nodes) {
        this.#admitted.add(node);
        admit(node);
      }
    });
  }

  /**
   * Whether `node` may start running now; if not, it waits for a place and is admitted (synced) then; `first`
   * waits ahead of every node that is not.
   */
  enter(node: string, first = false): boolean {
    if (!this.#pacer || this.#admitted.has(node)) return true;
    this.#pacer.add([node], () => first);
    // A free place lets it through at once (and queues a sync it will not need).
    return this.#admitted.has(node);
  }

  /** Whether `node` waits for a place. */
  waiting(node: string): boolean {
    return this.#pacer?.has(node) ?? false;
  }

  /** An admitted node's sync ended: it keeps its place while it runs, and gives it back if it did not start. */
  synced(node: string, running: boolean): void {
    if (this.#admitted.delete(node) && !running) this.#pacer?.done(node);
  }

  /** The node is in a settled state: its place goes to the next. */
  settled(node: string): void {
    this.#pacer?.done(node);
  }

  /** Others wait for `node` (a gate): if it waits for a place it goes now. */
  startNow(node: string): void {
    this.#pacer?.startNow(node);
  }

  remove(node: string): void {
    this.#admitted.delete(node);
    this.#pacer?.remove(node);
  }

  /** Nodes waiting for a place, or let through and not yet synced: the revision has not settled. */
  get starting(): boolean {
    return (this.#pacer?.size ?? 0) > 0 || this.#admitted.size > 0;
  }

  /** Running nodes holding a place, and nodes waiting for one. */
  get counts(): { running: number; waiting: number } {
    return { running: this.#pacer?.active ?? 0, waiting: this.#pacer?.size ?? 0 };
  }

  clear(): void {
    this.#admitted.clear();
    this.#pacer?.clear();
  }
}

/** A node waiting for a place, as the status shows it: a new one pending, one asked something new with its new revision. */
export function showWaiting(
  status: StatusStore,
  spec: NodeSpec,
  fresh: boolean,
  sha: string,
  counts: { running: number; waiting: number },
): void {
  const { name, address, os, roles, labels } = spec;
  const waiting = `waits for a place to run (${counts.running} nodes running, ${counts.waiting} waiting)`;
  if (!fresh) status.update(name, { name, desiredRevision: sha, waiting });
  else
    status.update(name, { name, address, os, roles: [...roles], labels: { ...labels }, state: 'pending', desiredRevision: sha, waiting });
}
