// The Linux phases on the simulated host: compute and controller converge, stay converged, and upgrade.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { LinuxRoleInput } from '../../../../src/roles/input.js';
import { linuxPlan } from '../../../../src/roles/linux/plan.js';
import { testPhase } from '../../../../src/roles/phase.js';
import { LinuxHost } from '../../../../src/sim/linux/linux-host.js';
import { SimNetwork } from '../../../../src/sim/network.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { linuxComputeInput } from '../../../support/inputs.js';

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
      if (phase.name !== 'verify')
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
      // node-init and kernel-init run once and exit; groundcrew deploys nothing of OpenStack (kolla-ansible does).
      'opencontrailnightly/contrail-node-init:5.0.1 exited',
      'opencontrailnightly/contrail-nodemgr:5.0.1 running',
      'opencontrailnightly/contrail-vrouter-agent:5.0.1 running',
      'opencontrailnightly/contrail-vrouter-kernel-build-init:5.0.1 exited',
    ]);
    expect(host.state.kernelModules).toEqual(['vrouter']);
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
      ['vrouter', 1, true],
      ['verify', 1, true],
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

  it('a version bump recreates the vRouter containers at the new images, and a reboot needs only nodemgr started', async () => {
    const host = LinuxHost.fresh('compute-l1');
    const exec = new SimExecutor({ host, shells });
    await convergeAll(exec, compute());
    await convergeAll(exec, compute({ contrailVersion: '5.0.2' }));
    expect(
      Object.values(host.state.containers)
        .filter((c) => c.project === 'vrouter')
        .map((c) => c.image.split(':')[1]),
    ).toEqual(['5.0.2', '5.0.2', '5.0.2', '5.0.2']);
    host.reboot();
    // The agent (restart: always) is back with vhost0, the module stays installed; nodemgr (restart: on-failure,
    // as c-a-d has it) is not, so the vrouter phase starts it again: only its up differs.
    expect(host.interfaces()).toEqual(['vhost0', 'pkt0']);
    const outcomes = await convergeAll(exec, compute({ contrailVersion: '5.0.2' }));
    expect(outcomes.every((o) => o.inDesiredState)).toBe(true);
    expect(outcomes.flatMap((o) => o.resources.filter((r) => r.status !== 'ok').map((r) => `${o.phase} ${r.resource}`))).toEqual([
      'vrouter compose/vrouter/up',
    ]);
  });

  it('a controller gets prereqs, openstack (a check that its Keystone answers) and verified: nothing deployed', async () => {
    const host = LinuxHost.fresh('ctrl1', {}, { keystone: { password: 'adm1n' } });
    const network = new SimNetwork();
    network.attach('192.0.2.10', host);
    host.network = network;
    const exec = new SimExecutor({ host, shells });
    const keystone = {
      address: '192.0.2.10',
      source: 'this node has an openstack role',
      user: 'admin',
      password: 'adm1n',
      project: 'admin',
      domain: 'Default',
    };
    const input = compute({ node: 'ctrl1', roles: ['openstack'], vrouter: false, hostsKeystone: true, keystone });
    expect(linuxPlan(input).phases.map((p) => p.name)).toEqual(['prereqs', 'openstack', 'verify']);
    const outcomes = await convergeAll(exec, input);
    expect(outcomes.every((o) => o.inDesiredState)).toBe(true);
    expect(host.state.containers).toEqual({});
    await expect(convergeAll(exec, compute({ ...input, keystone: { ...keystone, password: 'wrong' } }))).rejects.toMatchObject({
      code: 'GC_KEYSTONE_AUTH',
    });
  });

  it('a compose file without the kernel mounts leaves the agent restarting and the node unverified', async () => {
    const host = LinuxHost.fresh('compute-l1');
    const exec = new SimExecutor({ host, shells });
    await convergeAll(exec, compute());
    // Someone edits the file by hand: kernel-init without /lib/modules, on a host whose module was never installed.
    host.state.kernelModules = [];
    const path = '/etc/contrail/vrouter/docker-compose.yaml';
    host.fs.write(path, (host.fs.read(path) ?? '').replace(/- \/lib\/modules:\/lib\/modules\n/g, ''));
    await exec.run({ script: `docker compose -p vrouter -f ${path} up -d` }, { timeoutMs: 5000 });
    expect(host.state.containers['vrouter-vrouter-agent-1']).toMatchObject({ state: 'restarting', exitCode: 1 });
    const verified = linuxPlan(compute()).phases.at(-1);
    await expect(applyPhase(exec, verified as never)).rejects.toMatchObject({ code: 'GC_STILL_DIFFERENT' });
    // The vrouter phase puts c-a-d's file back: kernel-init installs the module, the agent comes up.
    const outcomes = await convergeAll(exec, compute());
    expect(outcomes.every((o) => o.inDesiredState)).toBe(true);
    expect(host.interfaces()).toEqual(['vhost0', 'pkt0']);
  });

  it('a host of a family c-a-d does not deploy the vRouter on fails the vrouter phase, naming what it found', async () => {
    const host = LinuxHost.fresh('alpine1');
    host.fs.write('/etc/os-release', 'NAME="Alpine Linux"\nID=alpine\n');
    const exec = new SimExecutor({ host, shells });
    const [prereqs, vrouter] = linuxPlan(compute()).phases;
    expect((await applyPhase(exec, prereqs as never)).inDesiredState).toBe(true);
    await expect(applyPhase(exec, vrouter as never)).rejects.toMatchObject({
      code: 'GC_SET_FAILED',
      message: expect.stringMatching(/not one contrail-ansible-deployer deploys the vRouter on \(RedHat or Debian\): ID=alpine/),
    });
    expect(host.fs.read('/etc/contrail/vrouter/docker-compose.yaml')).toBeUndefined();
  });
});
