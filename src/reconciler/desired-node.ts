// What a node is asked to be, as one value: its spec, role input and digest, the commit that asked it, and what
// the reconciler keeps of its plan (the order the machine takes the phases in, the gates). Derived once per
// revision by `desiredNode` and replaced whole on the node's record, never edited field by field.

import type { NodeSpec } from '../inventory/desired-state.js';
import type { RoleInput } from '../roles/input.js';
import { type Gate, planNode, planOrder } from '../roles/plan.js';
import { gateNodes, phaseGates } from './gates.js';

export interface DesiredNode {
  readonly spec: NodeSpec;
  /** What its plan is built from, on demand (the plan itself is not kept: see NodeRuntime.plan). */
  readonly role: RoleInput;
  readonly digest: string;
  /** The commit that last changed what the node is asked: its desired revision. */
  readonly revision: string;
  /** The plan's phases and the phases whose reboots batch, as the machine takes them. */
  readonly order: { readonly phases: string[]; readonly rebootBatch: string[] };
  /** The nodes its plan's gates wait for (every settle looks at every node's). */
  readonly gates: ReadonlySet<string>;
  /** The gates of each phase that has any (a phase is gated before its plan is built). */
  readonly phaseGates: ReadonlyMap<string, readonly Gate[]>;
}

/** The node's desired part, its plan built once for the order and the gates. */
export function desiredNode(spec: NodeSpec, role: RoleInput, digest: string, revision: string): DesiredNode {
  const plan = planNode(role);
  return { spec, role, digest, revision, order: planOrder(plan), gates: gateNodes(plan), phaseGates: phaseGates(plan) };
}

/** The same request under a spec whose mode or pause changed (the digest, and so the plan, did not). */
export function withSpec(desired: DesiredNode, spec: NodeSpec): DesiredNode {
  return { ...desired, spec };
}

/** The same request, attributed to `revision` (a restored node whose snapshot could not be used). */
export function withRevision(desired: DesiredNode, revision: string): DesiredNode {
  return { ...desired, revision };
}
