// The Linux phases on the simulated host: compute and controller converge, stay converged, and upgrade.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import type { LinuxRoleInput } from '../../../src/roles/input.js';
import { linuxPlan } from '../../../src/roles/linux/plan.js';
import { applyPhase, testPhase } from '../../../src/roles/phase.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { linuxComputeInput } from '../../support/inputs.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const compute = (overrides: Partial<LinuxRoleInput> = {}): LinuxRoleInput =>
  linuxComputeInput({
    environment: {
      CONTROLLER_NODES: '192.0.2.10',
      PHYSICAL_INTERFACE: 'ens4',
      KEYSTONE_AUTH_ADMIN_PASSWORD: 's3cret',
      VROUTER_GATEWAY: '192.0.2.1',
    },
    ...overrides,
  });

async function convergeAll(exec: SimExecutor, input: LinuxRoleInput) {
  const outcomes = [];
  for (const phase of linuxPlan(input).phases) outcomes.push(await applyPhase(exec, phase));
  return outcomes;
}

describe('Linux phases on a simulated host', () => {
  it('a compute: test finds differences, set applies them, a second test finds none', async () => {
    const host = LinuxHost.fresh('compute-l1');
    const exec = new SimExecutor({ host, shells });
    for (const phase of linuxPlan(compute()).phases) {
      const before = await testPhase(exec, phase);
      if (phase.name !== 'verified')
        expect(
          [...before.results.values()].some((r) => !r.inDesiredState),
          phase.name,
        ).toBe(true);
      const outcome = await applyPhase(exec, phase);
      expect(outcome.inDesiredState, phase.name).toBe(true);
      const after = await testPhase(exec, phase);
      expect(
        [...after.results.values()].every((r) => r.inDesiredState),
        phase.name,
      ).toBe(true);
    }
    expect(
      Object.values(host.state.containers)
        .map((c) => `${c.image} ${c.state}`)
        .sort(),
    ).toEqual([
      'kolla/centos-binary-nova-compute:ocata running',
      'opencontrailnightly/contrail-nodemgr:5.0.1 running',
      'opencontrailnightly/contrail-vrouter-agent:5.0.1 running',
      'opencontrailnightly/contrail-vrouter-kernel-init:5.0.1 running',
    ]);
    expect(host.fs.read('/etc/contrail/common_vrouter.env')).toBe(
      'CONTROLLER_NODES=192.0.2.10\nKEYSTONE_AUTH_ADMIN_PASSWORD=s3cret\nPHYSICAL_INTERFACE=ens4\nVROUTER_GATEWAY=192.0.2.1\n',
    );
    expect(host.fs.mode('/etc/contrail/common_vrouter.env')).toBe(0o600);
    expect(host.state.sysctls['net.ipv4.ip_forward']).toBe('1');
  });

  it('a third full pass issues no state-changing command: one read per phase, nothing in the journal', async () => {
    const host = LinuxHost.fresh('compute-l1');
    const exec = new SimExecutor({ host, shells });
    await convergeAll(exec, compute());
    await convergeAll(exec, compute());
    const journal = host.state.journal.length;
    const outcomes = await convergeAll(exec, compute());
    expect(outcomes.map((o) => [o.phase, o.commands, o.resources.every((r) => r.status === 'ok')])).toEqual([
      ['prereqs', 1, true],
      ['openstack', 1, true],
      ['vrouter', 1, true],
      ['verified', 1, true],
    ]);
    expect(host.state.journal.slice(journal)).toEqual([]);
  });

  it('the secret in common_vrouter.env travels on stdin, never in a command', async () => {
    const host = LinuxHost.fresh('compute-l1');
    const scripts: string[] = [];
    const inner = new SimExecutor({ host, shells });
    const exec = Object.assign(Object.create(inner) as SimExecutor, {
      run: (cmd: { script: string }, opts: never) => (scripts.push(cmd.script), inner.run(cmd, opts)),
    });
    await convergeAll(exec, compute());
    expect(scripts.join('\n')).not.toContain('s3cret');
    expect(host.fs.read('/etc/contrail/common_vrouter.env')).toContain('s3cret');
  });

  it('a version bump recreates the vRouter containers at the new images, and sets survive a reboot', async () => {
    const host = LinuxHost.fresh('compute-l1');
    const exec = new SimExecutor({ host, shells });
    await convergeAll(exec, compute());
    await convergeAll(exec, compute({ contrailVersion: '5.0.2' }));
    expect(
      Object.values(host.state.containers)
        .filter((c) => c.project === 'vrouter')
        .map((c) => c.image.split(':')[1]),
    ).toEqual(['5.0.2', '5.0.2', '5.0.2']);
    host.reboot();
    const outcomes = await convergeAll(exec, compute({ contrailVersion: '5.0.2' }));
    expect(outcomes.every((o) => o.resources.every((r) => r.status === 'ok'))).toBe(true);
  });

  it('a controller gets prereqs, openstack (Keystone) and verified', async () => {
    const host = LinuxHost.fresh('ctrl1');
    const exec = new SimExecutor({ host, shells });
    const input = compute({ node: 'ctrl1', vrouter: false, openstackCompute: false, hostsKeystone: true, keystoneAdminPassword: 'adm1n' });
    expect(linuxPlan(input).phases.map((p) => p.name)).toEqual(['prereqs', 'openstack', 'verified']);
    const outcomes = await convergeAll(exec, input);
    expect(outcomes.every((o) => o.inDesiredState)).toBe(true);
    expect(Object.values(host.state.containers).map((c) => c.image)).toEqual(['kolla/centos-binary-keystone:ocata']);
  });
});
