// Contrail's diagnostic check (Juniper/contrail-windows-tools Invoke-DiagnosticCheck.ps1, "Diagnostic check")
// as the verified phase: it holds on a Server 2016 and a Server 2019 node groundcrew converged from fresh, and
// fails, on the item concerned and on both builds, when any one component is broken. The converge also shows
// the roles did what the references do.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import { testPhase } from '../../../../src/roles/phase.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { windowsVerify } from '../../../../src/roles/windows/verify.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild, WindowsState } from '../../../../src/sim/windows/windows-state.js';
import { convergePhases } from '../../../support/converge-phases.js';
import { windowsInput } from '../../../support/inputs.js';
import { Recorder } from '../../../support/recorder.js';

let shells: SimShells;
const converged = new Map<WindowsBuild, { state: string; scripts: string[] }>();
const PASSWORD = 'cnm-s3cret-pw';
// Keystone credentials reach the CNM plugin's config; the openstack phase (a token from Keystone) is tested elsewhere.
const input = (version = '5.0.1'): WindowsRoleInput =>
  windowsInput({
    contrailVersion: version,
    address: '192.0.2.50',
    keystone: {
      address: '192.0.2.10',
      source: 'KEYSTONE_AUTH_HOST',
      user: 'admin',
      password: PASSWORD,
      project: 'admin',
      domain: 'Default',
    },
  });

async function convergeFresh(build: WindowsBuild, version?: string): Promise<{ host: WindowsHost; scripts: string[] }> {
  const host = WindowsHost.fresh({ hostname: 'win1', build });
  const exec = new Recorder(new SimExecutor({ host, shells }));
  const phases = () => windowsPlan(input(version)).phases.filter((p) => p.name !== 'openstack');
  await convergePhases(exec, phases, () => host.reboot(), { throwOnFailure: true });
  return { host, scripts: exec.scripts };
}

beforeAll(async () => {
  shells = await SimShells.create();
  for (const build of [14393, 17763] as WindowsBuild[]) {
    const { host, scripts } = await convergeFresh(build);
    converged.set(build, { state: JSON.stringify(host.state), scripts });
  }
});

const copy = (build: WindowsBuild) => new WindowsHost(JSON.parse(converged.get(build)?.state ?? '{}') as WindowsState);

async function diagnose(host: WindowsHost, version?: string) {
  const { results } = await testPhase(new SimExecutor({ host, shells }), windowsVerify(input(version)));
  return Object.fromEntries([...results].map(([name, r]) => [name, r.differingProperties]));
}

describe('the diagnostic check on converged nodes', () => {
  it.each([14393, 17763] as WindowsBuild[])('every item holds on a converged Server build %i', async (build) => {
    const failing = Object.entries(await diagnose(copy(build))).filter(([, differing]) => differing.length > 0);
    expect(failing).toEqual([]);
  });

  it('after 5.0 the driver is the CNM plugin (contrail_cnm_windows), and the check holds on it too', async () => {
    const { host } = await convergeFresh(17763, '5.1.0');
    const failing = Object.entries(await diagnose(host, '5.1.0')).filter(([, differing]) => differing.length > 0);
    expect(failing).toEqual([]);
    expect(host.state.registry['hklm:\\system\\currentcontrolset\\services\\contrail-cnm-plugin\\parameters']).toMatchObject({
      Application: 'C:\\Program Files\\Juniper Networks\\cnm-plugin\\contrail-cnm-plugin.exe',
    });
    expect(host.service('contrail-docker-driver')).toBeUndefined();
  });

  it('the roles did what c-a-d and contrail-windows-ci do', () => {
    const host = copy(17763);
    const cnm = host.fs.read('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-cnm-plugin.conf') ?? '';
    expect(cnm).toMatch(/\[AUTH\]\r\nAuthMethod=keystone\r\n/);
    expect(cnm).toMatch(
      /\[KEYSTONE\]\r\nOs_auth_url=http:\/\/192\.0\.2\.10:5000\/v3\r\nOs_username=admin\r\nOs_tenant_name=admin\r\nOs_password=cnm-s3cret-pw\r\n/,
    );
    // The password went on stdin only: no script sent to the node holds it.
    expect(converged.get(17763)?.scripts.filter((s) => s.includes(PASSWORD))).toEqual([]);
    const agent = host.fs.read('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-vrouter-agent.conf') ?? '';
    expect(agent).toContain('[DNS]\r\ndns_client_port=53\r\nservers=192.0.2.10:53\r\n');
    expect(agent).toContain(
      '[VIRTUAL-HOST-INTERFACE]\r\nname=ethernet_32777\r\nip=172.16.0.50/24\r\ngateway=172.16.0.1\r\nphysical_interface=ethernet_32769\r\n',
    );
    const nssm = (name: string) => host.state.registry[`hklm:\\system\\currentcontrolset\\services\\${name}\\parameters`];
    expect(nssm('contrail-vrouter-nodemgr')).toMatchObject({
      Application: 'C:\\Python27\\Scripts\\contrail-nodemgr.exe',
      AppParameters: '--nodetype contrail-vrouter',
    });
    // Contrail 5.0's driver (c-a-d create_win_docker_driver.yml): contrail-docker-driver running contrail-windows-docker.exe.
    expect(nssm('contrail-docker-driver')).toMatchObject({
      Application: 'C:\\Program Files\\Juniper Networks\\contrail-windows-docker.exe',
    });
    expect(host.service('contrail-cnm-plugin')).toBeUndefined();
    expect(host.state.features).toMatchObject({ 'Hyper-V-PowerShell': 'Installed', 'NET-Framework-Features': 'Installed' });
    expect(host.state.packageProviders).toEqual(['NuGet', 'DockerMsftProvider']);
    expect(host.state.firewall).toEqual({ Domain: false, Private: false, Public: false });
    expect(host.state.journal.filter((j) => j.startsWith('choco-install')).sort()).toEqual([
      'choco-install nssm 2.24.101',
      'choco-install python2 2.7.13',
      'choco-install vcredist140 14.16.27027',
    ]);
  });
});

const NAT = { name: 'nat', type: 'NAT', id: 'f00d', driver: 'nat' };
const BREAKS: [item: string, breaks: (h: WindowsHost) => void, resource: string, property: string][] = [
  [
    'the extension is disabled',
    (h) => {
      h.state.faults.extensionDisabled = true;
    },
    'verify/vrouter-extension',
    'Enabled',
  ],
  [
    'the extension is not running (the switch is gone with the CNM plugin)',
    (h) => h.stopService('contrail-docker-driver', true),
    'verify/vrouter-extension',
    'Running',
  ],
  [
    'the vhost vif is missing',
    (h) => {
      h.state.faults.vifMissing = ['vhost'];
    },
    'verify/vifs',
    'vhostVif',
  ],
  [
    'the physical vif is missing',
    (h) => {
      h.state.faults.vifMissing = ['physical'];
    },
    'verify/vifs',
    'physicalVif',
  ],
  [
    'the pkt0 vif is missing',
    (h) => {
      h.state.faults.vifMissing = ['pkt0'];
    },
    'verify/vifs',
    'pkt0Vif',
  ],
  [
    'the flow device does not open',
    (h) => {
      h.state.faults.flowBroken = true;
    },
    'verify/vifs',
    'flowDevice',
  ],
  ['the agent is stopped', (h) => h.stopService('contrail-vrouter-agent', true), 'verify/agent', 'Status'],
  [
    'the agent does not serve its API on TCP 9091 (a connect fails)',
    (h) => {
      h.state.faults.agentNotListening = true;
    },
    'verify/agent',
    'ServesAgentApi',
  ],
  [
    'the agent asserted (its log says "Assertion failed")',
    (h) => {
      h.fs.put(
        'C:\\ProgramData\\Contrail\\var\\log\\contrail\\contrail-vrouter-agent.log',
        'contrail-vrouter-agent.exe: Assertion failed: (vrf_ != NULL)',
      );
    },
    'verify/agent',
    'LogsWithAssertions',
  ],
  [
    'the ksync device does not open (vif --list fails)',
    (h) => {
      h.state.faults.ksyncBroken = true;
    },
    'verify/vifs',
    'ksyncDevice',
  ],
  [
    'the bridge table device does not open (rt --dump 0 --family bridge fails)',
    (h) => {
      h.state.faults.bridgeTableBroken = true;
    },
    'verify/vifs',
    'bridgeTableDevice',
  ],
  [
    'the CNM plugin does not answer on its pipe (a connect times out)',
    (h) => {
      h.state.faults.pipeNotServing = true;
    },
    'verify/cnm-plugin',
    'PipeServes',
  ],
  [
    'the firewall is on for one profile',
    (h) => {
      h.state.firewall.Public = true;
    },
    'verify/compute-node',
    'FirewallEnabledProfiles',
  ],
  [
    'npcap is installed',
    (h) => {
      h.state.services.npcap = {
        name: 'npcap',
        displayName: 'Npcap Packet Driver (NPCAP)',
        status: 'Running',
        startType: 'Automatic',
        binaryPath: 'System32\\drivers\\npcap.sys',
        dependsOn: [],
      };
    },
    'verify/compute-node',
    'Npcap',
  ],
  [
    'the kernel panicked (a MEMORY.DMP)',
    (h) => {
      h.fs.put('C:\\Windows\\MEMORY.DMP', 'dump');
    },
    'verify/compute-node',
    'MemoryDump',
  ],
  [
    'a minidump was written',
    (h) => {
      h.fs.put('C:\\Windows\\Minidump\\112626-01.dmp', 'dump');
    },
    'verify/compute-node',
    'Minidumps',
  ],
  [
    "an invalid 'Layered' HNS network (left after a reboot)",
    (h) => {
      h.state.hnsNetworks.push({ name: 'Layered Ethernet1', type: 'Transparent', id: '1a1a1a1a-0000-0000-0000-000000000001' });
    },
    'verify/docker',
    'LayeredHnsNetworks',
  ],
  ['nodemgr is stopped', (h) => h.stopService('contrail-vrouter-nodemgr', true), 'verify/nodemgr', 'Status'],
  ['the CNM plugin is stopped', (h) => h.stopService('contrail-docker-driver', true), 'verify/cnm-plugin', 'Status'],
  ['the CNM plugin lost its pipe', (h) => h.stopService('contrail-docker-driver', true), 'verify/cnm-plugin', 'Pipe'],
  [
    'there is no ContrailRootNetwork',
    (h) => {
      h.state.faults.noRootNetwork = true;
    },
    'verify/cnm-plugin',
    'ContrailRootNetwork',
  ],
  [
    'WinNAT runs',
    (h) => {
      const s = h.service('winnat');
      if (s) s.status = 'Running';
    },
    'verify/winnat',
    'Status',
  ],
  [
    'WinNAT starts automatically',
    (h) => {
      const s = h.service('winnat');
      if (s) s.startType = 'Automatic';
    },
    'verify/winnat',
    'StartType',
  ],
  [
    'a NetNat exists',
    (h) => {
      h.state.netNats.push('nat');
      h.state.hnsNetworks.push(NAT);
    },
    'verify/winnat',
    'NetNat',
  ],
  ['Docker is stopped', (h) => h.stopService('docker', true), 'verify/docker', 'Status'],
  [
    'a Contrail network came back with the transparent driver',
    (h) => {
      h.state.hnsNetworks.push({
        name: 'Contrail:0f1e2d3c4b5a69788796',
        type: 'Transparent',
        id: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
        adapter: 'Ethernet1',
        driver: 'transparent',
      });
    },
    'verify/docker',
    'ContrailNetworksWithTransparentDriver',
  ],
  [
    'an orphaned Contrail HNS network (in HNS, not in Docker)',
    (h) => {
      h.state.hnsNetworks.push({ name: 'Contrail:a1b2c3d4e5f60718', type: 'Transparent', id: 'a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90' });
    },
    'verify/docker',
    'OrphanedContrailHnsNetworks',
  ],
];

describe.each([14393, 17763] as WindowsBuild[])('on Server build %i the diagnostic check fails when one component is broken', (build) => {
  it.each(BREAKS)('%s', async (_item, breakIt, resource, property) => {
    const host = copy(build);
    breakIt(host);
    const failing = await diagnose(host);
    expect(failing[resource]).toContain(property);
  });
});
