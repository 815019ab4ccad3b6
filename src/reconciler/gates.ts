// Cross-node gates: a phase that waits for another node (a compute's openstack phase for the Keystone
// host) runs only once that node is verified on its own desired revision.

import { errors } from '../errors.js';
import type { Gate, NodePlan } from '../roles/plan.js';
import { planGates } from '../roles/plan.js';
import type { GateDependents } from './gate-dependents.js';
import type { NodeRecord } from './node-record.js';
import type { NodeScope } from './node-scope.js';
import { where } from './node-status.js';

export const GATE_CODES = new Set<string>([errors.GC_GATE_CLOSED.code, errors.GC_GATE_FAILED.code]);

/** Throws GC_GATE_CLOSED (retried) while a node the phase waits for is not verified, GC_GATE_FAILED when it failed. */
export function checkGates(gates: readonly Gate[], entries: ReadonlyMap<string, NodeRecord>, scope: NodeScope): void {
  for (const gate of gates) {
    const other = entries.get(gate.node);
    const snapshot = other?.actor.getSnapshot();
    // A node driven by another member (cluster mode): as that member last recorded it.
    const elsewhere = other ? undefined : scope.elsewhere(gate.node);
    if (elsewhere?.onDesired) continue;
    const state = snapshot ? where(snapshot).state : (elsewhere?.state ?? 'pending');
    if (state === 'verified' && snapshot?.context.revision === other?.desired.revision) continue;
    const message = `waits for ${gate.node} to be verified (it is ${state}): ${gate.reason}`;
    throw (state === 'stalled' || state === 'unreachable' ? errors.GC_GATE_FAILED : errors.GC_GATE_CLOSED)(message);
  }
}

const NO_GATES: ReadonlySet<string> = new Set();
const NO_PHASE_GATES: ReadonlyMap<string, readonly Gate[]> = new Map();

/**
 * Each gated phase's gates, kept on the node's record: a phase run checks them before it waits for a worker,
 * and builds its plan only once it holds one (plans built while waiting were most of the heap in flight).
 */
export function phaseGates(plan: NodePlan): ReadonlyMap<string, readonly Gate[]> {
  const gated = plan.phases.filter((p) => p.gates.length > 0);
  return gated.length === 0 ? NO_PHASE_GATES : new Map(gated.map((p) => [p.name, p.gates]));
}

/** The nodes a plan's gates wait for, kept on the node's record: every settle looks at every node's. */
export function gateNodes(plan: NodePlan): ReadonlySet<string> {
  const gates = planGates(plan);
  return gates.length === 0 ? NO_GATES : new Set(gates.map((g) => g.node));
}

/**
 * Nodes whose gate waits on `name` try again now instead of at the end of their backoff: one in backoff at once,
 * a stalled one (settled) through `request` (the reconciler's run window). Runs at every settle: only the nodes
 * `dependents` lists are looked at (looking at every node's gates was quadratic in the node count).
 */
export function wakeDependents(
  name: string,
  entries: ReadonlyMap<string, NodeRecord>,
  dependents: GateDependents,
  request?: (node: string) => void,
): void {
  for (const node of [...dependents.of(name)]) {
    const other = entries.get(node);
    if (!other?.desired.gates.has(name)) continue;
    const snapshot = other.actor.getSnapshot();
    const code = snapshot.context.lastError?.code ?? '';
    if (!GATE_CODES.has(code)) continue;
    if (snapshot.matches('stalled') && request) request(other.name);
    else if (snapshot.matches('backoff') || snapshot.matches('stalled')) other.actor.send({ type: 'reconcile.requested' });
  }
}
