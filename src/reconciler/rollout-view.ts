// A revision's rollout, read from the nodes' status: the nodes it changes (those whose desired revision it
// is), which applied it, which are at work, which wait on the disruption budget or on a halt, which failed,
// and whether the failure budget halted it and why (the reconciler's rollout says, through `RolloutHalt`).

import type { Rollout } from './rollout.js';
import type { NodeStatus } from './status-store.js';

/** What the reconciler knows of a revision's rollout beyond the nodes' status. */
export interface RolloutHalt {
  halted: boolean;
  reason?: string;
  /** Nodes that failed on the revision and count against its failure budget. */
  failed: string[];
}

export interface RolloutView {
  sha: string;
  /** Nodes the revision changes (their desired revision is this one). */
  nodes: number;
  applied: string[];
  inProgress: { name: string; state: string; phase?: string }[];
  /** Waiting for a slot of the disruption budget (maxUnavailable). */
  waitingBudget: string[];
  /** Held because the rollout halted. */
  held: string[];
  failed: { name: string; state: string; error?: string }[];
  /** Paused, orphaned, or settled without applying (monitor mode drift). */
  other: { name: string; state: string }[];
  halted: boolean;
  haltReason?: string;
  /** Every node it changes applied it. */
  finished: boolean;
}

const FAILED = new Set(['stalled', 'unreachable']);

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
  for (const n of all) {
    if (n.desiredRevision !== sha) continue;
    view.nodes++;
    if (n.state === 'verified' && n.lastAppliedRevision === sha) view.applied.push(n.name);
    else if (FAILED.has(n.state) || halt?.failed.includes(n.name))
      view.failed.push({
        name: n.name,
        state: n.state,
        ...(n.lastError ? { error: `${n.lastError.code}: ${n.lastError.message}` } : {}),
      });
    else if (n.waiting?.includes('halted')) view.held.push(n.name);
    else if (n.waiting?.includes('disruption budget')) view.waitingBudget.push(n.name);
    else if (['paused', 'orphaned', 'removed', 'verified'].includes(n.state)) view.other.push({ name: n.name, state: n.state });
    else view.inProgress.push({ name: n.name, state: n.state, ...(n.phase ? { phase: n.phase } : {}) });
  }
  view.finished = view.nodes > 0 && view.applied.length === view.nodes;
  return view;
}

/** What the reconciler's rollout says of `sha`. */
export function haltOf(rollout: Pick<Rollout, 'isHalted' | 'haltReason' | 'failures'>, sha: string): RolloutHalt {
  const reason = rollout.haltReason(sha);
  return { halted: rollout.isHalted(sha), ...(reason ? { reason } : {}), failed: rollout.failures(sha) };
}
