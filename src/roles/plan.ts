// A node's plan: its phases in order, why each is planned, what each waits for, and where reboots batch.
// The one place phases are chosen: `plan`, `plan --json`, the digest and the node machine all read it.

import type { Os } from '../os.js';
import type { RoleInput } from './input.js';
import { linuxPlan } from './linux/plan.js';
import type { Phase } from './phase.js';
import { windowsPlan } from './windows/plan.js';

/** Another node that must be verified before a phase may run (the Keystone host, for openstack). */
export interface Gate {
  kind: 'keystone';
  node: string;
  reason: string;
}

export interface PlannedPhase extends Phase {
  /** Why the node gets this phase, in the operator's words. */
  reason: string;
  /**
   * A reboot it asks for may wait for the next phase when that one batches too: one reboot, taken after
   * the last of a run of batching phases, serves them all (features and test signing share one).
   */
  batchesReboot: boolean;
  /** Nodes that must be verified before this phase runs. */
  gates: Gate[];
}

export interface NodePlan {
  os: Os;
  phases: PlannedPhase[];
  /** What the batched reboot is for: shown as a `rebootWait` step after the last batching phase. */
  batchedReboot?: string;
}

export function planNode(role: RoleInput): NodePlan {
  return role.os === 'windows' ? windowsPlan(role.input) : linuxPlan(role.input);
}

/** The steps as `plan` shows them: the phases, with `rebootWait` where a batched reboot would be taken. */
export function planSteps(plan: NodePlan): { phase: string; reason: string }[] {
  return plan.phases.flatMap((p, i) => {
    const step = { phase: p.name, reason: p.reason };
    const batchEnds = p.batchesReboot && !plan.phases[i + 1]?.batchesReboot;
    return batchEnds && plan.batchedReboot ? [step, { phase: 'rebootWait', reason: plan.batchedReboot }] : [step];
  });
}

/** What the node machine steps through: phase names in order, and which of them batch their reboots. */
export function planOrder(plan: NodePlan): { phases: string[]; rebootBatch: string[] } {
  return { phases: plan.phases.map((p) => p.name), rebootBatch: plan.phases.filter((p) => p.batchesReboot).map((p) => p.name) };
}

export function planGates(plan: NodePlan): Gate[] {
  return plan.phases.flatMap((p) => p.gates);
}
