// Cross-node gates: a phase that waits for another node (a compute's openstack phase for the Keystone
// host) runs only once that node is verified on its own desired revision.

import { errors } from '../errors.js';
import type { NodePlan, PlannedPhase } from '../roles/plan.js';
import { planGates } from '../roles/plan.js';
import { type Entry, where } from './node-status.js';

export const GATE_CODES = new Set<string>([errors.GC_GATE_CLOSED.code, errors.GC_GATE_FAILED.code]);

/** Throws GC_GATE_CLOSED (retried) while a node the phase waits for is not verified, GC_GATE_FAILED when it failed. */
export function checkGates(phase: PlannedPhase, entries: ReadonlyMap<string, Entry>): void {
  for (const gate of phase.gates) {
    const other = entries.get(gate.node);
    const snapshot = other?.actor.getSnapshot();
    const state = snapshot ? where(snapshot).state : 'pending';
    if (state === 'verified' && snapshot?.context.revision === other?.revision) continue;
    const message = `waits for ${gate.node} to be verified (it is ${state}): ${gate.reason}`;
    throw (state === 'stalled' || state === 'unreachable' ? errors.GC_GATE_FAILED : errors.GC_GATE_CLOSED)(message);
  }
}

/** The nodes a plan's gates wait for, worked out once per plan: every settle looks at every node's plan. */
const gateNodes = new WeakMap<NodePlan, ReadonlySet<string>>();

function waitsFor(plan: NodePlan): ReadonlySet<string> {
  let nodes = gateNodes.get(plan);
  if (!nodes) {
    nodes = new Set(planGates(plan).map((g) => g.node));
    gateNodes.set(plan, nodes);
  }
  return nodes;
}

/**
 * Nodes whose gate waits on `name` try again now instead of at the end of their backoff. Runs at every settle
 * over every node: at 10,000 nodes, planGates per node per settle was most of the daemon's CPU during a converge.
 */
export function wakeDependents(name: string, entries: ReadonlyMap<string, Entry>): void {
  for (const other of entries.values()) {
    if (!waitsFor(other.runtime.plan).has(name)) continue;
    const snapshot = other.actor.getSnapshot();
    const code = snapshot.context.lastError?.code ?? '';
    if ((snapshot.matches('backoff') || snapshot.matches('stalled')) && GATE_CODES.has(code))
      other.actor.send({ type: 'reconcile.requested' });
  }
}
