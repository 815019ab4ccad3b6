// The one vocabulary of node states (src/node-state.ts) is the machine's: its top-level states, no more, no fewer;
// every named subset is made of states of the union.

import { describe, expect, it } from 'vitest';
import { BUSY, FAILING, MACHINE_STATES, NODE_STATES, REBOOT_STEPS, RESTING, SETTLED } from '../../../src/node-state.js';
import { nodeMachine } from '../../../src/state-machines/node-machine.js';

describe('node states', () => {
  it("are the machine's top-level states, and orphaned (no machine)", () => {
    expect(Object.keys(nodeMachine.root.states).sort()).toEqual([...MACHINE_STATES].sort());
    expect([...NODE_STATES].sort()).toEqual([...MACHINE_STATES, 'orphaned'].sort());
  });

  it('every subset is of the union; settled and busy split the machine states', () => {
    for (const subset of [SETTLED, RESTING, FAILING, BUSY]) for (const s of subset) expect(NODE_STATES).toContain(s);
    expect(MACHINE_STATES.filter((s) => !SETTLED.has(s))).toEqual(MACHINE_STATES.filter((s) => BUSY.has(s)));
  });

  it("a reboot's steps are the rebooting state's sub-states; no other state but converging has any", () => {
    expect(Object.keys(nodeMachine.root.states.rebooting?.states ?? {}).sort()).toEqual([...REBOOT_STEPS].sort());
    const compound = Object.entries(nodeMachine.root.states).filter(([, s]) => Object.keys(s.states).length > 0);
    expect(compound.map(([name]) => name).sort()).toEqual(['converging', 'rebooting']);
  });
});
