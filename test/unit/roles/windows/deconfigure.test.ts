// The Windows deconfigure phase on a simulated host: what it takes off, and that its script's exit code says
// whether it did (powershell.exe exits 1 when the last statement left $? false: about_PowerShell_exe).

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { windowsDeconfigure } from '../../../../src/roles/windows/deconfigure.js';
import { MSI_RECORD_DIR } from '../../../../src/roles/windows/msi-resource.js';
import { OVERLAY_RECORD, windowsOverlayAbsent } from '../../../../src/roles/windows/overlay.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { windowsInput } from '../../../support/inputs.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const CONTRAIL_SERVICES = ['contrail-cnm-plugin', 'contrail-docker-driver', 'contrail-vrouter-agent', 'contrail-vrouter-nodemgr'];

describe('Windows deconfigure', () => {
  it('takes the services and MSIs off a converged node that never had a kubelet (the last service it looks for)', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1', features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } });
    const exec = new SimExecutor({ host, shells });
    for (const phase of windowsPlan(windowsInput({ testSigning: false, signedVrouter: true })).phases) await applyPhase(exec, phase);
    const present = () => CONTRAIL_SERVICES.filter((s) => host.service(s));
    expect(present().length).toBeGreaterThan(0);
    expect(host.service('kubelet')).toBeUndefined();
    // The builds the MSIs were installed from are recorded (msi-resource.ts), and go with them.
    expect(host.fs.read(`${MSI_RECORD_DIR}\\vRouter.build`)?.trim()).toBe('5.0.1');

    const outcome = await applyPhase(exec, windowsDeconfigure());
    expect(outcome.inDesiredState).toBe(true);
    expect(present()).toEqual([]);
    expect(Object.values(host.state.products).map((p) => p.name)).toEqual([]);
    expect(host.fs.isDir(MSI_RECORD_DIR)).toBe(false);
    // Once more: nothing left to take off, one read and nothing set.
    expect(await applyPhase(exec, windowsDeconfigure())).toMatchObject({ inDesiredState: true, commands: 1 });
  });

  it("takes off the overlay's routes and port proxies the record lists, and those already gone are no failure", async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const exec = new SimExecutor({ host, shells });
    const record = { routes: ['10.244.2.0/24', '10.244.3.0/24'], ports: ['0.0.0.0:8080', '0.0.0.0:9090'] };
    const setup = await exec.run(
      {
        label: 'an overlay left behind',
        script: [
          "New-NetRoute -DestinationPrefix '10.244.2.0/24' -NextHop '192.0.2.22' -InterfaceAlias 'Ethernet0' | Out-Null",
          'netsh interface portproxy add v4tov4 listenport=8080 listenaddress=0.0.0.0 connectport=80 connectaddress=10.244.1.5',
          "New-Item -ItemType Directory -Force -Path 'C:\\ProgramData\\groundcrew' | Out-Null",
          `Set-Content -Path '${OVERLAY_RECORD}' -Value '${JSON.stringify(record)}'`,
        ].join('\n'),
      },
      { timeoutMs: 10_000 },
    );
    expect(setup).toMatchObject({ exitCode: 0, stderr: '' });
    expect(host.state.routes.some((r) => r.destinationPrefix === '10.244.2.0/24')).toBe(true);

    const phase = { name: 'deconfigure', resources: [windowsOverlayAbsent()] };
    expect(await applyPhase(exec, phase)).toMatchObject({ inDesiredState: true });
    expect(host.state.routes.filter((r) => r.destinationPrefix.startsWith('10.244.'))).toEqual([]);
    expect(host.state.portProxies).toEqual([]);
    expect(host.fs.read(OVERLAY_RECORD)).toBeUndefined();
  });

  it('an overlay network Docker cannot remove fails the phase with what docker said, and the record stays for the next pass', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const exec = new SimExecutor({ host, shells });
    host.fs.put(OVERLAY_RECORD, JSON.stringify({ routes: [], ports: [] }));
    // As read on a node whose Docker is no longer there: the facts say the network exists.
    const facts = new Map<string, unknown>([
      ['overlay.absent.network', true],
      ['overlay.record', JSON.stringify({ routes: [], ports: [] })],
    ]);
    await expect(windowsOverlayAbsent().set({ exec, facts })).rejects.toMatchObject({
      code: 'GC_SET_FAILED',
      message: expect.stringMatching(/^remove the overlay failed \(exit 1\): docker : The term 'docker' is not recognized/),
    });
    expect(host.fs.read(OVERLAY_RECORD)).toBeDefined();
  });
});
