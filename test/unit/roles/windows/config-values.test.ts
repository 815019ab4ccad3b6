// Issue 28 item 7, the config values c-a-d writes that groundcrew took from elsewhere: nodemgr's collectors from
// ANALYTICS_NODES and its [SANDESH] section, the agent's [DNS] servers from DNS_NODES, and the virtual-router
// named as the host names itself (c-a-d: "nodemgr sends hostname with original letter case") with the domain
// suffix; each read from instances.yaml as c-a-d's common_Win32NT.yml defaults them.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { NodeSpec } from '../../../../src/inventory/desired-state.js';
import { roleInput } from '../../../../src/reconciler/role-input.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import { nodemgrConfig } from '../../../../src/roles/windows/contrail-config.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { LinuxHost } from '../../../../src/sim/linux/linux-host.js';
import { SimNetwork } from '../../../../src/sim/network.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { windowsInput } from '../../../support/inputs.js';
import { errorsOf, parse, yaml } from '../../inventory/helpers.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

/** The Windows node "win" of an inventory with a controller "ctrl" (config, control) and an analytics node "an". */
function windowsNode(...configuration: string[]): WindowsRoleInput {
  const result = parse(
    yaml(
      'provider_config:',
      '  bms_win: { ansible_user: Administrator, domainsuffix: lab.example }',
      'instances:',
      '  ctrl: { provider: bms, ip: 10.0.0.10, roles: { config: , control: } }',
      '  an: { provider: bms, ip: 10.0.0.20, roles: { analytics: } }',
      '  win: { provider: bms_win, ip: 10.0.0.31, roles: { vrouter: , win_cnm_plugin: } }',
      'contrail_configuration:',
      '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
      ...configuration,
    ),
  );
  if (!result.ok) throw new Error(errorsOf(result).join('\n'));
  const node = result.state.nodes.find((n) => n.name === 'win') as NodeSpec;
  const role = roleInput(result.state, node);
  if (role.os !== 'windows') throw new Error('not windows');
  return role.input;
}

const line = (lines: string[], key: string) => lines.find((l) => l.startsWith(`${key}=`));

describe("nodemgr's config", () => {
  it('sends to the analytics nodes (ANALYTICS_NODES, else CONTROLLER_NODES, else the analytics role), not the control nodes', () => {
    expect(line(nodemgrConfig(windowsNode('  ANALYTICS_NODES: 10.0.0.21,10.0.0.22')), 'server_list')).toBe(
      'server_list=10.0.0.21:8086 10.0.0.22:8086',
    );
    expect(line(nodemgrConfig(windowsNode('  CONTROLLER_NODES: 10.0.0.40', '  CONTROL_NODES: 172.16.0.40')), 'server_list')).toBe(
      'server_list=10.0.0.40:8086',
    );
    expect(line(nodemgrConfig(windowsNode()), 'server_list')).toBe('server_list=10.0.0.20:8086');
  });

  it("has contrail-windows-ci's [SANDESH] section: no SSL for introspect or Sandesh", () => {
    const lines = nodemgrConfig(windowsInput());
    expect(lines.slice(lines.indexOf('[SANDESH]'))).toEqual(['[SANDESH]', 'introspect_ssl_enable=False', 'sandesh_ssl_enable=False']);
  });

  it('refuses an ANALYTICS_NODES or DNS_NODES value that could carry another line into the file', () => {
    const result = parse(
      yaml(
        'instances:',
        '  win: { provider: bms_win, ip: 10.0.0.31, roles: { vrouter: } }',
        'contrail_configuration:',
        '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
        '  ANALYTICS_NODES: "10.0.0.21\\n[SANDESH]"',
        '  DNS_NODES: 10.0.0.5;rm',
      ),
    );
    expect(errorsOf(result)).toEqual([
      // The line break is refused as any control character in any value is (issue 39), and by the key's form.
      'instances.yaml:5:20: contrail_configuration.ANALYTICS_NODES: the value holds a line break (U+000A); a value must be one line of text',
      expect.stringMatching(/instances\.yaml:5:\d+: .*ANALYTICS_NODES: .* is not addresses separated by commas/),
      expect.stringMatching(/instances\.yaml:6:\d+: .*DNS_NODES: "10\.0\.0\.5;rm" is not addresses separated by commas/),
    ]);
  });
});

describe("the agent's DNS servers", () => {
  it('are DNS_NODES, else the control nodes (c-a-d: DNS_NODES defaults to CONTROL_NODES)', () => {
    expect(windowsNode('  DNS_NODES: 10.0.0.53, 10.0.0.54').dnsNodes).toBe('10.0.0.53,10.0.0.54');
    expect(windowsNode('  CONTROL_NODES: 172.16.0.40').dnsNodes).toBe('172.16.0.40');
  });
});

describe('the virtual-router and the agent', () => {
  for (const build of [14393, 17763] as const) {
    it(`are named as the host names itself, in its letter case, with the domain suffix (build ${build})`, async () => {
      const network = new SimNetwork();
      const controller = LinuxHost.fresh('ctrl1', {}, { configApi: true });
      network.attach('10.0.0.10', controller);
      const host = WindowsHost.fresh({
        hostname: 'WinCompute1',
        build,
        features: ['Containers', 'Hyper-V'],
        catalog: { signedVrouter: true },
      });
      host.network = network;
      const input = { ...windowsNode('  DNS_NODES: 10.0.0.53'), testSigning: false, signedVrouter: true, contrailVersion: '5.1.0' };
      expect(input.domainSuffix).toBe('lab.example');
      const exec = new SimExecutor({ host, shells });
      for (const phase of windowsPlan(input).phases) expect((await applyPhase(exec, phase)).inDesiredState).toBe(true);
      expect(Object.keys(controller.state.controller?.configApi?.virtualRouters ?? {})).toEqual(['WinCompute1.lab.example']);
      const agent = host.fs.read('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-vrouter-agent.conf') ?? '';
      expect(agent).toContain('[DEFAULT]\r\nplatform=windows\r\nhostname=WinCompute1.lab.example\r\n');
      expect(agent).toContain('[DNS]\r\ndns_client_port=53\r\nservers=10.0.0.53:53\r\n');
    });
  }
});
