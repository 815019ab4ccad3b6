// The Keystone gate as a phase run checks it: by the phase's name, from the gates kept on the node's entry
// (the plan itself is built only once the phase holds a worker).

import { describe, expect, it } from 'vitest';
import { checkGates, gateNodes, phaseGates } from '../../../src/reconciler/gates.js';
import { localCoordination } from '../../../src/reconciler/local-coordination.js';
import type { NodeRecord } from '../../../src/reconciler/node-record.js';
import { planNode } from '../../../src/roles/plan.js';
import { linuxComputeInput } from '../../support/inputs.js';

const keystone = {
  address: '192.0.2.10',
  source: 'the node with an openstack role',
  hostNode: 'ctrl',
  user: 'admin',
  password: 'p',
  project: 'admin',
  domain: 'Default',
};

/** An entry as checkGates reads it: the machine's snapshot (state, revision) and the desired revision. */
function entryIn(state: string, revision: string, desired = revision): NodeRecord {
  const snapshot = { status: 'active', value: state, context: { revision } };
  return { desired: { revision: desired }, actor: { getSnapshot: () => snapshot } } as unknown as NodeRecord;
}

describe('gates by phase name', () => {
  const plan = planNode({ os: 'linux', input: linuxComputeInput({ keystone }) });
  const gates = phaseGates(plan);

  it("only the compute's openstack phase waits, for the Keystone host", () => {
    expect([...gates.keys()]).toEqual(['openstack']);
    expect([...gateNodes(plan)]).toEqual(['ctrl']);
    expect(phaseGates(planNode({ os: 'linux', input: linuxComputeInput() })).size).toBe(0);
  });

  it('closed while the host is not verified on its desired revision, failed when it stalled, open once verified', () => {
    const check = (ctrl: NodeRecord | undefined, phase = 'openstack') =>
      checkGates(gates.get(phase) ?? [], new Map(ctrl ? [['ctrl', ctrl]] : []), localCoordination().scope);
    expect(() => check(undefined)).toThrow(expect.objectContaining({ code: 'GC_GATE_CLOSED' }));
    expect(() => check(entryIn('converging', 'r1'))).toThrow(expect.objectContaining({ code: 'GC_GATE_CLOSED' }));
    expect(() => check(entryIn('verified', 'r1', 'r2'))).toThrow(expect.objectContaining({ code: 'GC_GATE_CLOSED' }));
    expect(() => check(entryIn('stalled', 'r1'))).toThrow(expect.objectContaining({ code: 'GC_GATE_FAILED' }));
    expect(() => check(entryIn('verified', 'r1'))).not.toThrow();
    // Phases without gates never wait, whatever the host's state.
    expect(() => check(entryIn('stalled', 'r1'), 'vrouter')).not.toThrow();
  });
});
