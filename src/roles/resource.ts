// The DSC v3 contract, as groundcrew's roles use it: a resource reads facts, tests them, and sets itself.

import type { Executor } from '../dataplane/executor.js';

/**
 * One thing to read from a node. `ps` is a PowerShell expression; on Linux, one of `sh` (bash commands whose
 * stdout is the value: a process each) or `shBuiltin` (bash builtins only, run as a function in the facts
 * script's own shell: they leave the value in `$gc_v` and `return` the status; no process is started).
 */
export interface FactQuery {
  id: string;
  ps?: string;
  sh?: string;
  shBuiltin?: string;
}

/** Facts of a phase, gathered in one round trip: id -> value (JSON from PowerShell, text from bash). */
export type Facts = ReadonlyMap<string, unknown>;

export interface TestResult {
  inDesiredState: boolean;
  differingProperties: string[];
  /** What was found, for the run report's before/after. */
  actual?: unknown;
  desired?: unknown;
}

export interface SetResult {
  changed: boolean;
  rebootRequested: boolean;
}

export interface SetContext {
  exec: Executor;
  signal?: AbortSignal;
  /** The facts the test saw: set acts on them, never on guesses. */
  facts: Facts;
}

export interface Resource {
  /** Stable and unique in its phase, e.g. `feature/Containers`: it names the resource in run reports. */
  name: string;
  facts: FactQuery[];
  /** A secret its facts need (a Keystone request body): sent on stdin, read as $GcStdin / "$GC_STDIN". */
  factsStdin?: string;
  test(facts: Facts): TestResult;
  set(ctx: SetContext): Promise<SetResult>;
  /** Its set takes the node's data plane down (reinstalling the vRouter): counted against maxUnavailable. */
  disruptive?: boolean;
  /**
   * May still be set when an earlier resource of the phase has asked for a reboot: its own change also
   * waits for that reboot (a second Windows feature), so both share one reboot instead of taking two.
   */
  sharesReboot?: boolean;
}

export const NO_CHANGE: SetResult = { changed: false, rebootRequested: false };
export const CHANGED: SetResult = { changed: true, rebootRequested: false };

/** A test helper: compare named properties of actual and desired. */
export function compare(properties: Record<string, [actual: unknown, desired: unknown]>): TestResult {
  const differing = Object.entries(properties)
    .filter(([, [a, d]]) => JSON.stringify(a) !== JSON.stringify(d))
    .map(([k]) => k);
  const pick = (i: 0 | 1) => Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v[i]]));
  return { inDesiredState: differing.length === 0, differingProperties: differing, actual: pick(0), desired: pick(1) };
}
