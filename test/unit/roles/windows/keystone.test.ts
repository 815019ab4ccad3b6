// Issue 28 item 3: the CNM plugin's Os_auth_url and the openstack phase's token URL follow c-a-d's Keystone keys
// (KEYSTONE_AUTH_PROTO, KEYSTONE_AUTH_PUBLIC_PORT, KEYSTONE_AUTH_URL_VERSION, KEYSTONE_AUTH_URL_TOKENS; defaults
// http, 5000, /v2.0, /v2.0/tokens in c-a-d's playbooks/roles/contrail/defaults/main.yml). The plugin's client
// (contrail-go-api KeystoneClient.Authenticate) posts a v2.0 body to <Os_auth_url>/tokens: with the URL that
// groundcrew hard-coded before (http://<host>:5000/v3) it met 404 and never started.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { KeystoneInput, WindowsRoleInput } from '../../../../src/roles/input.js';
import { linuxPlan } from '../../../../src/roles/linux/plan.js';
import type { PhaseOutcome } from '../../../../src/roles/phase.js';
import { cnmConfig } from '../../../../src/roles/windows/contrail-config.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { LinuxHost } from '../../../../src/sim/linux/linux-host.js';
import { SimNetwork } from '../../../../src/sim/network.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { linuxComputeInput, windowsInput } from '../../../support/inputs.js';
import { Recorder } from '../../../support/recorder.js';
import { parse, warningsOf, yaml } from '../../inventory/helpers.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const PASSWORD = 'c0ntrail123';
const keystone = (overrides: Partial<KeystoneInput> = {}): KeystoneInput => ({
  address: '192.0.2.10',
  source: 'KEYSTONE_AUTH_HOST',
  user: 'admin',
  password: PASSWORD,
  project: 'admin',
  domain: 'Default',
  proto: 'http',
  urlVersion: '/v2.0',
  urlTokens: '/v2.0/tokens',
  ...overrides,
});

function cluster(build: 14393 | 17763) {
  const network = new SimNetwork();
  const controller = LinuxHost.fresh('ctrl1', {}, { configApi: true, keystone: { password: PASSWORD } });
  network.attach('192.0.2.10', controller);
  controller.network = network;
  const win = WindowsHost.fresh({ hostname: 'win1', build, features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } });
  win.network = network;
  return { controller, win, exec: new Recorder(new SimExecutor({ host: win, shells })) };
}

async function converge(exec: Recorder, input: WindowsRoleInput): Promise<PhaseOutcome[]> {
  const outcomes: PhaseOutcome[] = [];
  for (const phase of windowsPlan(input).phases) outcomes.push(await applyPhase(exec, phase));
  return outcomes;
}

const authUrl = (input: WindowsRoleInput) => cnmConfig(input).find((l) => l.startsWith('Os_auth_url='));

describe("the CNM plugin's Keystone URL", () => {
  it("is c-a-d's template: PROTO://HOST:PUBLIC_PORT + URL_VERSION, not a hard-coded /v3", () => {
    expect(authUrl(windowsInput({ keystone: keystone() }))).toBe('Os_auth_url=http://192.0.2.10:5000/v2.0');
    expect(authUrl(windowsInput({ keystone: keystone({ proto: 'https', port: 13000, urlVersion: '/v3' }) }))).toBe(
      'Os_auth_url=https://192.0.2.10:13000/v3',
    );
  });

  for (const build of [14393, 17763] as const) {
    for (const contrailVersion of ['5.0.1', '5.1.0']) {
      it(`with AUTH_MODE keystone the plugin gets its token and the node converges (build ${build}, Contrail ${contrailVersion})`, async () => {
        const c = cluster(build);
        const input = windowsInput({
          contrailVersion,
          testSigning: false,
          signedVrouter: true,
          address: '192.0.2.31',
          configApi: { address: '192.0.2.10' },
          keystone: keystone(),
        });
        const outcomes = await converge(c.exec, input);
        expect(outcomes.map((o) => [o.phase, o.failure?.message ?? 'ok'])).toEqual([
          ['prereqs', 'ok'],
          ['openstack', 'ok'],
          ['vrouter', 'ok'],
          ['driver', 'ok'],
          ['verify', 'ok'],
        ]);
        // The openstack phase asked where c-a-d asks, with c-a-d's v2.0 body.
        expect(c.exec.scripts.join('\n')).toContain("'http://192.0.2.10:5000/v2.0/tokens'");
        // The virtual-router was registered with the token v2.0 gave in its body (c-a-d: access.token.id).
        expect(c.controller.state.controller?.configApi?.virtualRouters).toHaveProperty('win1');
      });
    }
  }

  it("a v3 Os_auth_url stops the plugin: its v2.0 client meets Keystone's 404 at /v3/tokens", async () => {
    const c = cluster(17763);
    const input = windowsInput({
      contrailVersion: '5.1.0',
      testSigning: false,
      signedVrouter: true,
      address: '192.0.2.31',
      configApi: { address: '192.0.2.10' },
      keystone: keystone({ urlVersion: '/v3', urlTokens: '/v3/auth/tokens' }),
    });
    await expect(converge(c.exec, input)).rejects.toThrow(
      /start contrail-cnm-plugin failed .*Keystone at http:\/\/192\.0\.2\.10:5000\/v3\/tokens answered 404/,
    );
    // The openstack phase before it followed URL_TOKENS: v3 there is a 201 for the v3 body.
    expect(c.exec.scripts.join('\n')).toContain("'http://192.0.2.10:5000/v3/auth/tokens'");
    // The registration before it took a v3 token from the X-Subject-Token header.
    expect(c.controller.state.controller?.configApi?.virtualRouters).toHaveProperty('win1');
  });
});

describe("the openstack phase's token check", () => {
  it('follows KEYSTONE_AUTH_URL_TOKENS on Linux too: v2.0 by default, v3 when configured', async () => {
    const network = new SimNetwork();
    const controller = LinuxHost.fresh('ctrl1', {}, { keystone: { password: PASSWORD } });
    const compute = LinuxHost.fresh('compute-l1');
    for (const [address, host] of [
      ['192.0.2.10', controller],
      ['192.0.2.21', compute],
    ] as const) {
      network.attach(address, host);
      host.network = network;
    }
    for (const urlTokens of ['/v2.0/tokens', '/v3/auth/tokens']) {
      const exec = new Recorder(new SimExecutor({ host: compute, shells }));
      const phase = linuxPlan(linuxComputeInput({ keystone: keystone({ urlTokens }) })).phases.find((p) => p.name === 'openstack');
      const outcome = await applyPhase(exec, phase as never);
      expect(outcome.inDesiredState).toBe(true);
      expect(exec.scripts.join('\n')).toContain(`http://192.0.2.10:5000${urlTokens}`);
    }
    // A path the Keystone does not serve says which key names it.
    const exec = new Recorder(new SimExecutor({ host: compute, shells }));
    const phase = linuxPlan(linuxComputeInput({ keystone: keystone({ urlTokens: '/v3/tokens' }) })).phases.find(
      (p) => p.name === 'openstack',
    );
    await expect(applyPhase(exec, phase as never)).rejects.toThrow(/does not serve that path \(404\): KEYSTONE_AUTH_URL_TOKENS/);
  });
});

describe('an inventory that asks the CNM plugin for Identity v3', () => {
  const inventory = (version: string) =>
    parse(
      yaml(
        'instances:',
        '  win: { provider: bms_win, ip: 10.0.0.31, roles: { vrouter: , win_cnm_plugin: } }',
        'contrail_configuration:',
        '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
        '  AUTH_MODE: keystone',
        '  KEYSTONE_AUTH_HOST: 10.0.0.10',
        `  KEYSTONE_AUTH_URL_VERSION: ${version}`,
      ),
    );

  it('is warned at validation: the plugin speaks v2.0 only; /v2.0 is not', () => {
    expect(warningsOf(inventory('/v3'))).toEqual([
      expect.stringMatching(/instances\.yaml:2:\d+: .*win_cnm_plugin .*KEYSTONE_AUTH_URL_VERSION is \/v3: .*Identity v2\.0 only/),
    ]);
    expect(warningsOf(inventory('/v2.0'))).toEqual([]);
  });
});
