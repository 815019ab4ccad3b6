// One pass of a phase that throws its failure: for tests that only need to know the phase is done (the
// reconciler reads passPhase's outcome instead).

import type { Executor } from '../../src/dataplane/executor.js';
import { type Phase, type PhaseOptions, type PhaseOutcome, passPhase } from '../../src/roles/phase.js';

export async function applyPhase(exec: Executor, phase: Phase, opts: PhaseOptions = {}): Promise<PhaseOutcome> {
  const outcome = await passPhase(exec, phase, opts);
  if (outcome.failure) throw outcome.failure;
  return outcome;
}
