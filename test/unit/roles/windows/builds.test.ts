// The facts that would stall a real Server 2016 or 2019 node (issue 28), one test each, on both builds where
// the build matters: the 2019 vhost adapter's name, the HNS cmdlets of 2019, a BIOS host's Secure Boot
// check, and the signed vRouter image. Each converges a fresh simulated host through the node's plan.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import type { PhaseOutcome } from '../../../../src/roles/phase.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { FreshWindowsOptions, WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { convergeSimWindows } from '../../../support/converge-phases.js';
import { windowsInput } from '../../../support/inputs.js';
import { BUILDS } from '../../../support/windows-scripts.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

/** The node machine's order of the plan's phases on a simulated host; the last pass's outcomes (to a failure). */
const converge = (host: WindowsHost, input: WindowsRoleInput) => convergeSimWindows(host, shells, input);

const fresh = (build: WindowsBuild, more: Partial<FreshWindowsOptions> = {}) => WindowsHost.fresh({ hostname: 'win1', build, ...more });
const failures = (outcomes: PhaseOutcome[]) => outcomes.filter((o) => o.failure).map((o) => `${o.phase}: ${o.failure?.message}`);

describe('the vhost adapter: vEthernet (HNSTransparent) on 2016, vEthernet (<physical adapter>) on 2019', () => {
  it.each(BUILDS)('on Server build %i the agent config names the vhost and the node converges', async (build) => {
    const host = fresh(build);
    expect(failures(await converge(host, windowsInput()))).toEqual([]);
    const vhost = host.adapters().find((a) => a.name === (build === 14393 ? 'vEthernet (HNSTransparent)' : 'vEthernet (Ethernet1)'));
    expect(vhost).toBeDefined();
    const agent = host.fs.read('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-vrouter-agent.conf') ?? '';
    expect(agent).toContain(`[VIRTUAL-HOST-INTERFACE]\r\nname=${vhost?.ifName}\r\nip=172.16.0.50/24\r\n`);
    expect(host.isRunning('contrail-vrouter-agent')).toBe(true);
  });
});

describe('HNS networks: Get-ContainerNetwork on 2016, Get-HnsNetwork on 2019', () => {
  it.each(BUILDS)('on Server build %i a NAT network left by Docker is removed, with the cmdlets of the build', async (build) => {
    // A host where Docker already ran without bridge none: its nat network and NetNat are there.
    const host = fresh(build, { features: ['Containers', 'Hyper-V'] });
    host.state.hnsNetworks.push({ name: 'nat', type: 'NAT', id: '0d0e0a0d-0000-0000-0000-00000000000a', driver: 'nat' });
    host.state.netNats.push('nat');
    expect(failures(await converge(host, windowsInput()))).toEqual([]);
    expect(host.state.hnsNetworks).toEqual([]);
    expect(host.state.journal).toContain(
      build === 14393 ? 'remove-container-network nat' : 'remove-hns-network 0d0e0a0d-0000-0000-0000-00000000000a',
    );
  });

  it.each(BUILDS)('on Server build %i the overlay makes its transparent network and finds it again', async (build) => {
    const host = fresh(build, { features: ['Containers', 'Hyper-V'] });
    const overlay = {
      subnet: '10.244.1.0/24',
      gateway: '10.244.1.1',
      prefixLength: 24,
      routes: [],
      ports: [],
      adapter: 'Ethernet1',
      hostAddress: '192.0.2.50',
    };
    const input = windowsInput({ roles: ['k8s_node'], testSigning: false, overlay });
    expect(failures(await converge(host, input))).toEqual([]);
    // A second pass finds every resource as it left it: the network read back on either build.
    const again = await converge(host, input);
    const changed = (o: PhaseOutcome) => o.resources.filter((r) => r.status !== 'ok').map((r) => r.resource);
    expect(again.flatMap(changed)).toEqual([]);
  });
});

describe('test signing on a BIOS host (Confirm-SecureBootUEFI: "Cmdlet not supported on this platform")', () => {
  it.each(BUILDS)('on Server build %i a BIOS host, which has no Secure Boot, gets test signing', async (build) => {
    const host = fresh(build, { firmware: 'BIOS' });
    expect(failures(await converge(host, windowsInput()))).toEqual([]);
    expect(host.state.activeTestSigning).toBe(true);
  });

  it('a UEFI host with Secure Boot on still stalls before anything changes', async () => {
    const host = fresh(17763, { secureBoot: true });
    const outcomes = await converge(host, windowsInput());
    expect(failures(outcomes)).toEqual([expect.stringMatching(/^testSigning: .*Secure Boot is on/)]);
    expect(host.state.bcdTestSigning).toBe(false);
  });
});

describe('WINDOWS_USE_SIGNED_VROUTER: the contrail-windows-vrouter-signed image', () => {
  it('pulls the signed image and installs its driver with no test signing and no certificate', async () => {
    const host = fresh(17763, { catalog: { signedVrouter: true } });
    const input = windowsInput({ testSigning: false, signedVrouter: true });
    expect(failures(await converge(host, input))).toEqual([]);
    expect(host.state.images).toContain('opencontrailnightly/contrail-windows-vrouter-signed:5.0.1');
    expect(host.state.images).not.toContain('opencontrailnightly/contrail-windows-vrouter:5.0.1');
    expect(host.state.bcdTestSigning).toBe(false);
    expect(host.state.certStores.Root).toEqual({});
  });

  it('the plain image holds the test-signed build: without test signing its driver does not load', async () => {
    const host = fresh(17763, { catalog: { signedVrouter: true } });
    const outcomes = await converge(host, windowsInput({ testSigning: false }));
    expect(failures(outcomes)).toEqual([expect.stringMatching(/^vrouter: .*(1603|1920|signature)/)]);
  });
});

describe("the agent's vhost name, read again at each start (contrail-controller's entrypoint.ps1)", () => {
  it.each(BUILDS)('on Server build %i the agent starts after the CNM plugin made a new switch outside groundcrew', async (build) => {
    const host = fresh(build);
    expect(failures(await converge(host, windowsInput()))).toEqual([]);
    const conf = () => host.fs.read('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-vrouter-agent.conf') ?? '';
    expect(conf()).toContain('name=ethernet_32777\r\n');
    // The plugin restarts (NSSM after a crash, say): a new switch, a new vhost interface; then the agent restarts.
    host.stopService('contrail-vrouter-agent', true);
    host.stopService('contrail-docker-driver', true);
    expect(host.startService('contrail-docker-driver')).toBeUndefined();
    expect(host.adapters().find((a) => a.name.startsWith('vEthernet'))?.ifName).toBe('ethernet_32778');
    expect(host.startService('contrail-vrouter-agent')).toBeUndefined();
    expect(conf()).toContain('name=ethernet_32778\r\n');
  });
});
