// What a node's role input reads from the other nodes of a revision (the config nodes, the Kubernetes control
// plane, the overlay's plan). Every such read is made through `crossNodeRead`: worked out once per revision, not
// once per node (10,000²), and registered as it is defined, so `sharedInputs` fingerprints every read there is.
// Which nodes a commit touches (role-input.ts `touched`) follows from what roleInput reads: no second list.

import type { DesiredState } from '../inventory/desired-state.js';

/** A read of the revision beyond one node's own spec. */
export type CrossNodeRead<T> = (state: DesiredState) => T;

/** Every cross-node read defined, by name: what `sharedInputs` fingerprints. */
const READS: { name: string; fingerprint: (state: DesiredState) => unknown }[] = [];

/**
 * Defines a cross-node read: `compute` once per revision, memoized on the DesiredState. `fingerprint` is what of
 * its value a node's role input can depend on, in a form cheap to compare (by default the value itself): two
 * revisions with equal fingerprints of every read give a node whose spec is unchanged the same role input.
 */
export function crossNodeRead<T>(
  name: string,
  compute: (state: DesiredState) => T,
  fingerprint: (value: T, state: DesiredState) => unknown = (value) => value,
): CrossNodeRead<T> {
  const memo = new WeakMap<DesiredState, { value: T }>();
  const read = (state: DesiredState): T => {
    let held = memo.get(state);
    if (!held) {
      held = { value: compute(state) };
      memo.set(state, held);
    }
    return held.value;
  };
  READS.push({ name, fingerprint: (state) => fingerprint(read(state), state) });
  return read;
}

/** The fingerprint of everything any node reads from `state` beyond its own NodeSpec. */
export function sharedInputs(state: DesiredState): string {
  return JSON.stringify(READS.map((r) => [r.name, r.fingerprint(state) ?? null]));
}
