// Contrail's diagnostic check (Juniper/contrail-windows-tools Invoke-DiagnosticCheck.ps1, "Diagnostic check")
// as the verify phase: it holds on a Server 2016 and a Server 2019 node groundcrew converged from fresh, and
// fails, on the item concerned and on both builds, when any one component is broken. The converge also shows
// the roles did what the references do.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import { testPhase } from '../../../../src/roles/phase.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { windowsVerify } from '../../../../src/roles/windows/verify.js';
import { LinuxHost } from '../../../../src/sim/linux/linux-host.js';
import { SimNetwork } from '../../../../src/sim/network.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild, WindowsState } from '../../../../src/sim/windows/windows-state.js';
import { convergePhases } from '../../../support/converge-phases.js';
import { BREAKS } from '../../../support/diagnostic-breaks.js';
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
  // The CNM plugin starts only with a token from Keystone (sim/windows/cnm-keystone-client.ts): the controller's.
  host.network = new SimNetwork();
  host.network.attach('192.0.2.10', LinuxHost.fresh('ctrl1', {}, { keystone: { password: PASSWORD } }));
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
      /\[KEYSTONE\]\r\nOs_auth_url=http:\/\/192\.0\.2\.10:5000\/v2\.0\r\nOs_username=admin\r\nOs_tenant_name=admin\r\nOs_password=cnm-s3cret-pw\r\n/,
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
      'choco-install vcpython27 9.0.30729.6161',
      'choco-install vcredist140 14.16.27027',
      'choco-install vcredist2013 12.0.40664',
    ]);
  });
});

describe.each([14393, 17763] as WindowsBuild[])('on Server build %i the diagnostic check fails when one component is broken', (build) => {
  it.each(BREAKS)('%s', async (_item, breakIt, resource, property) => {
    const host = copy(build);
    breakIt(host);
    const failing = await diagnose(host);
    expect(failing[resource]).toContain(property);
  });
});
