// The node machine's order of phases, for tests that drive a role's plan on one host without the machine: the
// phases in turn; a reboot when one asks for it, taken at once unless this phase and the next both batch it
// (state-machines' batched reboot); then a new pass from the first phase, until a pass asks for no reboot.

import type { Executor } from '../../src/dataplane/executor.js';
import { SimExecutor, type SimShells } from '../../src/dataplane/sim-executor.js';
import type { WindowsRoleInput } from '../../src/roles/input.js';
import { type PhaseOutcome, passPhase } from '../../src/roles/phase.js';
import type { PlannedPhase } from '../../src/roles/plan.js';
import { windowsPlan } from '../../src/roles/windows/plan.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';

export interface Converged {
  /** The last pass's outcomes, in order; on a failure, up to the failed phase. */
  outcomes: PhaseOutcome[];
  reboots: number;
}

export interface ConvergeOptions {
  /** How many passes before it counts as not converging (default 4). */
  passes?: number;
  /** A failed phase's error is thrown (as test/support/apply-phase.ts does) rather than returned as the last outcome. */
  throwOnFailure?: boolean;
}

/** `phases` is asked again every pass (a plan may change with what the host has); `reboot` takes the host down and back. */
export async function convergePhases(
  exec: Executor,
  phases: () => PlannedPhase[],
  reboot: () => void | Promise<void>,
  { passes = 4, throwOnFailure = false }: ConvergeOptions = {},
): Promise<Converged> {
  let reboots = 0;
  for (let pass = 0; pass < passes; pass++) {
    const outcomes: PhaseOutcome[] = [];
    let rebootWanted = false;
    const plan = phases();
    for (const [i, phase] of plan.entries()) {
      const outcome = await passPhase(exec, phase);
      if (outcome.failure && throwOnFailure) throw outcome.failure;
      outcomes.push(outcome);
      if (outcome.failure) return { outcomes, reboots };
      rebootWanted ||= outcome.rebootRequested;
      if (rebootWanted && !(phase.batchesReboot && plan[i + 1]?.batchesReboot)) break;
    }
    if (!rebootWanted) return { outcomes, reboots };
    await reboot();
    reboots++;
  }
  throw new Error(`did not converge in ${passes} passes`);
}

/** convergePhases of `input`'s Windows plan on a simulated host (taken down and back by its reboot); the last pass's outcomes. */
export async function convergeSimWindows(
  host: WindowsHost,
  shells: SimShells,
  input: WindowsRoleInput,
  rebootMs?: number,
): Promise<PhaseOutcome[]> {
  const exec = new SimExecutor({ host, shells, ...(rebootMs === undefined ? {} : { rebootMs }) });
  return (
    await convergePhases(
      exec,
      () => windowsPlan(input).phases,
      () => host.reboot(),
    )
  ).outcomes;
}
