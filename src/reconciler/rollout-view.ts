// A revision's rollout, read from the nodes' status: the nodes it changes (those whose desired revision it
// is), which applied it, which are at work, which wait on the disruption budget or on a halt, which failed,
// and whether the failure budget halted it and why (the reconciler's rollout says, through `RolloutHalt`).

import { OUT_OF_ROLLOUT, TROUBLED } from '../node-state.js';
import type { Resumed, Rollout } from './rollout.js';
import type { NodeStatus } from './status-store.js';

/** What the reconciler knows of a revision's rollout beyond the nodes' status. */
export interface RolloutHalt {
  halted: boolean;
  reason?: string;
  /** Nodes that failed on the revision and count against its failure budget. */
  failed: string[];
  /** An operator released the halt (`groundcrew rollout resume`): when, and the failed nodes it released. */
  resumed?: Resumed;
}

export interface RolloutView {
  sha: string;
  /** Nodes the revision changes (their desired revision is this one). */
  nodes: number;
  applied: string[];
  inProgress: { name: string; state: string; phase?: string; reboot?: string }[];
  /** Waiting for a slot of the disruption budget (maxUnavailable). */
  waitingBudget: string[];
  /** Held because the rollout halted. */
  held: string[];
  failed: { name: string; state: string; error?: string }[];
  /** Paused, orphaned, or settled without applying (monitor mode drift). */
  other: { name: string; state: string }[];
  halted: boolean;
  haltReason?: string;
  resumed?: Resumed;
  /** Every node it changes applied it. */
  finished: boolean;
}

export function rolloutOf(all: readonly NodeStatus[], sha: string, halt?: RolloutHalt): RolloutView {
  const view: RolloutView = {
    sha,
    nodes: 0,
    applied: [],
    inProgress: [],
    waitingBudget: [],
    held: [],
    failed: [],
    other: [],
    halted: halt?.halted ?? false,
    finished: false,
  };
  if (halt?.reason) view.haltReason = halt.reason;
  if (halt?.resumed) view.resumed = halt.resumed;
  for (const n of all) {
    if (n.desiredRevision !== sha) continue;
    view.nodes++;
    if (n.state === 'verified' && n.lastAppliedRevision === sha) view.applied.push(n.name);
    else if (TROUBLED.has(n.state) || halt?.failed.includes(n.name))
      view.failed.push({
        name: n.name,
        state: n.state,
        ...(n.lastError ? { error: `${n.lastError.code}: ${n.lastError.message}` } : {}),
      });
    else if (n.waiting?.includes('halted')) view.held.push(n.name);
    else if (n.waiting?.includes('disruption budget')) view.waitingBudget.push(n.name);
    else if (OUT_OF_ROLLOUT.has(n.state)) view.other.push({ name: n.name, state: n.state });
    else
      view.inProgress.push({
        name: n.name,
        state: n.state,
        ...(n.phase ? { phase: n.phase } : {}),
        ...(n.reboot ? { reboot: n.reboot } : {}),
      });
  }
  view.finished = view.nodes > 0 && view.applied.length === view.nodes;
  return view;
}

const applied = (n: NodeStatus) => n.state === 'verified' && n.lastAppliedRevision === n.desiredRevision;

/**
 * Nodes still held by a halt, whichever revision halted: a node whose desired revision's rollout is halted and
 * that has not applied it (its failed nodes too). A later commit that leaves them on that revision ends nothing.
 */
export function heldByHalts(all: readonly NodeStatus[], halted: (sha: string) => boolean): string[] {
  const verdicts = new Map<string, boolean>();
  const isHalted = (sha: string) => verdicts.get(sha) ?? verdicts.set(sha, halted(sha)).get(sha);
  return all.filter((n) => n.desiredRevision && !applied(n) && isHalted(n.desiredRevision)).map((n) => n.name);
}

/**
 * Nodes on their way to a revision other than `sha` (at work, waiting for a slot, held by a halt): the rollout of
 * `sha` is not finished while any is, since they are part of what `sha` asks for. Failed or paused nodes are not.
 */
export function rollingElsewhere(all: readonly NodeStatus[], sha: string, halted: (sha: string) => boolean): string[] {
  const held = new Set(heldByHalts(all, halted));
  return all
    .filter((n) => n.desiredRevision && n.desiredRevision !== sha)
    .filter((n) => (held.has(n.name) ? !TROUBLED.has(n.state) : !applied(n) && !TROUBLED.has(n.state) && !OUT_OF_ROLLOUT.has(n.state)))
    .map((n) => n.name);
}

/** What the reconciler's rollout says of `sha`. */
export function haltOf(rollout: Pick<Rollout, 'isHalted' | 'haltReason' | 'failures' | 'resumed'>, sha: string): RolloutHalt {
  const reason = rollout.haltReason(sha);
  const resumed = rollout.resumed(sha);
  return { halted: rollout.isHalted(sha), ...(reason ? { reason } : {}), failed: rollout.failures(sha), ...(resumed ? { resumed } : {}) };
}
