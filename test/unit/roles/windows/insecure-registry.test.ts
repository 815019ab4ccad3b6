// Issue 28 item 7: a private registry served over plain HTTP (global_configuration REGISTRY_PRIVATE_INSECURE, as
// c-a-d's docker role reads it) goes into daemon.json's insecure-registries (c-a-d
// docker/tasks/insecure_registry_Win32NT.yml), and Docker, restarted, pulls Contrail's images from it. Without
// it the simulated Docker refuses the pull as Docker does ("http: server gave HTTP response to HTTPS client").

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { NodeSpec } from '../../../../src/inventory/desired-state.js';
import { roleInput } from '../../../../src/reconciler/role-input.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { windowsInput } from '../../../support/inputs.js';
import { errorsOf, parse, yaml } from '../../inventory/helpers.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const REGISTRY = '10.0.0.5:5000';

function host(build: 14393 | 17763) {
  return WindowsHost.fresh({
    hostname: 'win1',
    build,
    features: ['Containers', 'NET-Framework-Features', 'Hyper-V'],
    catalog: { signedVrouter: true, registries: ['docker.io', REGISTRY], plainHttpRegistries: [REGISTRY] },
  });
}

async function converge(h: WindowsHost, input: WindowsRoleInput) {
  const exec = new SimExecutor({ host: h, shells });
  for (const phase of windowsPlan(input).phases) await applyPhase(exec, phase);
}

const input = (registryInsecure: boolean) =>
  windowsInput({
    registry: `${REGISTRY}/contrail`,
    // WINDOWS_USE_SIGNED_VROUTER, as role-input.ts gives it: no test signing, the production-signed image.
    testSigning: false,
    signedVrouter: true,
    contrailVersion: '5.1.0',
    ...(registryInsecure ? { registryInsecure } : {}),
  });

describe('a plain-HTTP private registry', () => {
  for (const build of [14393, 17763] as const) {
    it(`with REGISTRY_PRIVATE_INSECURE is in daemon.json and Docker pulls from it (build ${build})`, async () => {
      const h = host(build);
      h.fs.put('C:\\ProgramData\\docker\\config\\daemon.json', '{"debug":true}');
      await converge(h, input(true));
      expect(JSON.parse(h.fs.read('C:\\ProgramData\\docker\\config\\daemon.json') ?? '')).toEqual({
        debug: true,
        bridge: 'none',
        'insecure-registries': [REGISTRY],
      });
      expect(h.state.images).toContain(`${REGISTRY}/contrail/contrail-windows-vrouter-signed:5.1.0`);
      expect(h.state.images).toContain(`${REGISTRY}/contrail/contrail-windows-cnm-plugin:5.1.0`);
    });
  }

  it('without it Docker refuses to pull, as Docker does, and the vRouter phase fails saying so', async () => {
    const h = host(17763);
    await expect(converge(h, input(false))).rejects.toThrow(/http: server gave HTTP response to HTTPS client/);
  });

  it('REGISTRY_PRIVATE_INSECURE: true in global_configuration reaches the Windows node', () => {
    const result = parse(
      yaml(
        'instances:',
        '  win: { provider: bms_win, ip: 10.0.0.31, roles: { vrouter: } }',
        'global_configuration:',
        `  CONTAINER_REGISTRY: ${REGISTRY}`,
        '  REGISTRY_PRIVATE_INSECURE: true',
        'contrail_configuration:',
        '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
        '  CONTROLLER_NODES: 10.0.0.10',
      ),
    );
    if (!result.ok) throw new Error(errorsOf(result).join('\n'));
    const role = roleInput(result.state, result.state.nodes[0] as NodeSpec);
    expect(role.os === 'windows' && role.input.registryInsecure).toBe(true);
  });
});
