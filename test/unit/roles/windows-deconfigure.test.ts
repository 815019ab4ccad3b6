// The Windows deconfigure phase on a simulated host: what it takes off, and that its script's exit code says
// whether it did (powershell.exe exits 1 when the last statement left $? false: about_PowerShell_exe).

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import { applyPhase } from '../../../src/roles/phase.js';
import { windowsDeconfigure } from '../../../src/roles/windows/deconfigure.js';
import { windowsPlan } from '../../../src/roles/windows/plan.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { windowsInput } from '../../support/inputs.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const CONTRAIL_SERVICES = ['contrail-cnm-plugin', 'contrail-docker-driver', 'contrail-vrouter-agent', 'contrail-vrouter-nodemgr'];

describe('Windows deconfigure', () => {
  it('takes the services and MSIs off a converged node that never had a kubelet (the last service it looks for)', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1', features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } });
    const exec = new SimExecutor({ host, shells });
    for (const phase of windowsPlan(windowsInput({ testSigning: false })).phases) await applyPhase(exec, phase);
    const present = () => CONTRAIL_SERVICES.filter((s) => host.service(s));
    expect(present().length).toBeGreaterThan(0);
    expect(host.service('kubelet')).toBeUndefined();

    const outcome = await applyPhase(exec, windowsDeconfigure());
    expect(outcome.inDesiredState).toBe(true);
    expect(present()).toEqual([]);
    expect(Object.values(host.state.products).map((p) => p.name)).toEqual([]);
    // Once more: nothing left to take off, one read and nothing set.
    expect(await applyPhase(exec, windowsDeconfigure())).toMatchObject({ inDesiredState: true, commands: 1 });
  });
});
