// A node Windows would refuse stalls with its own clear error, before anything is changed and with no
// reboot: Secure Boot under test signing, and a session without an elevated token.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { passPhase } from '../../../../src/roles/phase.js';
import { windowsOverlay } from '../../../../src/roles/windows/overlay.js';
import { windowsPrereqs } from '../../../../src/roles/windows/prereqs.js';
import { windowsTestSigning } from '../../../../src/roles/windows/test-signing.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { windowsInput } from '../../../support/inputs.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

describe('stalls Windows would force', () => {
  it('Secure Boot: test signing stalls with GC_SECURE_BOOT, bcdedit is never run and no reboot is asked for', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1', features: ['Containers', 'Hyper-V'], secureBoot: true });
    const outcome = await passPhase(new SimExecutor({ host, shells }), windowsTestSigning());
    expect(outcome.failure?.code).toBe('GC_SECURE_BOOT');
    expect(outcome.failure?.message).toMatch(/Secure Boot is on/);
    expect(outcome.rebootRequested).toBe(false);
    expect(host.rebootRequested).toBe(false);
    expect(host.state.journal.filter((j) => j.startsWith('bcdedit'))).toEqual([]);
  });

  it('an unelevated session stalls prereqs with GC_NOT_ELEVATED before any change; test signing too', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1', elevated: false });
    const exec = new SimExecutor({ host, shells });
    const prereqs = await passPhase(exec, windowsPrereqs(windowsInput()));
    expect(prereqs.failure?.code).toBe('GC_NOT_ELEVATED');
    expect(prereqs.resources.map((r) => r.status)).toEqual(['failed']);
    expect(host.state.journal).toEqual([]);
    const signing = await passPhase(exec, windowsTestSigning());
    expect(signing.failure?.code).toBe('GC_NOT_ELEVATED');
    expect(signing.rebootRequested).toBe(false);
  });

  it('the overlay never binds the management adapter: the one carrying the node address is refused before any change', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1', features: ['Containers', 'Hyper-V'], managementAddress: '192.0.2.31' });
    const overlay = { subnet: '10.42.1.0/24', gateway: '10.42.1.1', prefixLength: 24, routes: [], ports: [], hostAddress: '192.0.2.31' };
    const refused = await passPhase(new SimExecutor({ host, shells }), windowsOverlay({ ...overlay, adapter: 'Ethernet0' }));
    expect(refused.failure?.code).toBe('GC_SET_FAILED');
    expect(refused.failure?.message).toMatch(/adapter Ethernet0 carries the node's own address 192\.0\.2\.31.*overlay_interface/);
    expect(host.state.hnsNetworks).toEqual([]);
  });
});
