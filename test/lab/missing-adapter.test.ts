// Issue 37: a Windows node whose inventory names an adapter it does not have stops in prereqs, over real SSH and real
// pwsh, with the adapters it does have named, and nothing disruptive done: the plan's phases run in order as the node
// machine runs them, the first failure ends the pass, and the host's own journal and the lab's call log show that
// only the facts were read (no feature installed, no MSI, no switch, no reboot). The same host then converges with the
// adapter it has.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WindowsRoleInput } from '../../src/roles/input.js';
import { type PhaseOutcome, passPhase } from '../../src/roles/phase.js';
import { windowsPlan } from '../../src/roles/windows/plan.js';
import { windowsInput } from '../support/inputs.js';
import { Lab } from './lab.js';
import { LabExecutors } from './lab-executors.js';

let lab: Lab;
const executors = new LabExecutors(() => lab);

beforeAll(async () => {
  lab = await Lab.start({ hosts: [{ name: 'hvb', os: 'windows', windows: { build: 14393 } }], rebootMs: 300 });
});
afterAll(async () => {
  await executors.close();
  await lab?.stop();
});

/** The plan's phases in order until one fails or asks for a reboot (then the host reboots, as the machine has it). */
async function pass(input: WindowsRoleInput): Promise<PhaseOutcome[]> {
  const outcomes: PhaseOutcome[] = [];
  for (const phase of windowsPlan(input).phases) {
    const outcome = await passPhase(executors.of('hvb'), phase);
    outcomes.push(outcome);
    if (outcome.failure || outcome.rebootRequested) break;
  }
  return outcomes;
}

describe('an adapter the node does not have, over SSH and real pwsh', () => {
  it('stalls prereqs with GC_ADAPTER_MISSING naming the adapters it has; only the facts were read', async () => {
    const calls = (await lab.commandLog('hvb')).length;
    const outcomes = await pass(windowsInput({ node: 'hvb', physicalInterface: 'Ethernet2' }));
    expect(outcomes.map((o) => o.phase)).toEqual(['prereqs']);
    const [prereqs] = outcomes as [PhaseOutcome];
    expect(prereqs.failure?.code).toBe('GC_ADAPTER_MISSING');
    expect(prereqs.failure?.retryable).toBe(false);
    expect(prereqs.failure?.message).toBe(
      'WINDOWS_PHYSICAL_INTERFACE Ethernet2 is not an adapter of hvb: it has Ethernet0, Ethernet1; nothing was changed',
    );
    expect(prereqs.resources.map((r) => [r.resource, r.status])).toEqual([
      ['session/elevated', 'ok'],
      ['adapters/named', 'failed'],
    ]);
    // One command reached the host (the facts), it changed nothing, and the host never went down.
    expect(prereqs.commands).toBe(1);
    expect((await lab.commandLog('hvb')).length - calls).toBe(1);
    expect(lab.windows('hvb').state.journal).toEqual([]);
    expect(lab.host('hvb').reboots).toBe(0);
    expect(lab.windows('hvb').state.features.Containers).toBe('Available');
    expect(lab.windows('hvb').state.products).toEqual({});
  }, 300_000);

  it('named as the node has it (Ethernet1), the same host goes past the check and installs its prerequisites', async () => {
    const outcomes = await pass(windowsInput({ node: 'hvb', physicalInterface: 'ethernet1' }));
    const [prereqs] = outcomes as [PhaseOutcome];
    expect(prereqs.failure).toBeUndefined();
    expect(prereqs.resources.find((r) => r.resource === 'adapters/named')?.status).toBe('ok');
    expect(lab.windows('hvb').state.journal.some((j) => j.startsWith('install-feature'))).toBe(true);
  }, 300_000);
});
