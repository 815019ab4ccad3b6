// The node machine driving the real roles on simulated hosts: a whole node, reboot included, end to end.

import { beforeAll, describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import type { Command, RunOptions } from '../../../src/dataplane/executor.js';
import { SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import { errors, markSent } from '../../../src/errors.js';
import { type NodeRuntime, sharedNodeActors } from '../../../src/reconciler/node-actors.js';
import { linuxPlan } from '../../../src/roles/linux/plan.js';
import { testPhases } from '../../../src/roles/phase.js';
import { type NodePlan, planOrder } from '../../../src/roles/plan.js';
import { windowsPlan } from '../../../src/roles/windows/plan.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { nodeMachine } from '../../../src/state-machines/node-machine.js';
import { linuxComputeInput, windowsInput } from '../../support/inputs.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const LIMITS = { settleMs: 50, rebootTimeoutMs: 5_000, backoffBaseMs: 50, backoffMaxMs: 200 };

/** The machine steps through the plan's phases, as the reconciler drives it. */
function drive(exec: SimExecutor, plan: NodePlan, runtime: Partial<NodeRuntime> = {}) {
  const machine = nodeMachine.provide({
    actors: sharedNodeActors(() => ({ exec, plan: () => plan, poll: { initialMs: 20, maxMs: 100 }, ...runtime })),
  });
  const actor = createActor(machine, {
    input: { node: exec.host.state.hostname, revision: 'r1', ...planOrder(plan), mode: 'autocorrect', paused: false, limits: LIMITS },
  });
  actor.start();
  return actor;
}

describe('a node converged by its machine', () => {
  it('a fresh Windows host: one reboot for features and test signing, then verified', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const exec = new SimExecutor({ host, shells, rebootMs: 150 });
    const input = windowsInput();
    const plan = windowsPlan(input);
    expect(planOrder(plan).phases).toEqual(['prereqs', 'testSigning', 'vrouter', 'driver', 'verify']);
    const actor = drive(exec, plan);
    const done = await waitFor(actor, (s) => s.matches('verified') || s.matches('stalled') || s.matches('unreachable'), {
      timeout: 15_000,
    });
    expect(done.value, JSON.stringify(done.context.lastError)).toBe('verified');
    expect(exec.stats.reboots).toBe(1);
    expect(host.state.bootCount).toBe(2);
    expect(done.context).toMatchObject({ lastAppliedRevision: 'r1', rebootsThisRevision: 1 });
    expect(host.pipes()).toContain('pkt0');
    actor.stop();
  });

  it('a Linux compute: verified without a reboot; the next resync (autocorrect) only reads', async () => {
    const host = LinuxHost.fresh('compute-l1');
    const exec = new SimExecutor({ host, shells });
    const input = linuxComputeInput();
    const actor = drive(exec, linuxPlan(input));
    await waitFor(actor, (s) => s.matches('verified'), { timeout: 10_000 });
    const journal = host.state.journal.length;
    const commands = exec.stats.commands;
    actor.send({ type: 'resync' });
    await waitFor(actor, (s) => s.matches('verified') && exec.stats.commands > commands, { timeout: 10_000 });
    expect(exec.stats.commands - commands).toBe(3);
    expect(host.state.journal.slice(journal)).toEqual([]);
    expect(exec.stats.reboots).toBe(0);
    actor.stop();
  });

  it('testPhases: every phase of a converged node tested in one command; a drifted phase is named', async () => {
    const host = LinuxHost.fresh('compute-l9');
    const exec = new SimExecutor({ host, shells });
    const input = linuxComputeInput({ node: 'compute-l9' });
    const actor = drive(exec, linuxPlan(input));
    await waitFor(actor, (s) => s.matches('verified'), { timeout: 10_000 });
    actor.stop();
    const commands = exec.stats.commands;
    const tests = await testPhases(exec, linuxPlan(input).phases);
    expect(exec.stats.commands - commands).toBe(1);
    expect(tests.map((t) => [t.phase, t.inDesiredState])).toEqual([
      ['prereqs', true],
      ['vrouter', true],
      ['verify', true],
    ]);
    host.fs.remove('/etc/contrail/common_vrouter.env', false);
    const drifted = await testPhases(exec, linuxPlan(input).phases);
    expect(drifted.filter((t) => !t.inDesiredState).map((t) => t.phase)).toEqual(['vrouter']);
    expect(drifted.find((t) => t.phase === 'vrouter')?.results.get('env/common_vrouter')?.inDesiredState).toBe(false);
  });

  it('a host that never comes back from its reboot ends unreachable, with the reason', async () => {
    const host = WindowsHost.fresh({ hostname: 'win2' });
    const exec = new SimExecutor({ host, shells, rebootMs: 100 });
    exec.neverReturnFromReboot = true;
    const input = windowsInput({ node: 'win2', dockerVersion: undefined, testSigning: false });
    const plan = windowsPlan(input);
    const machine = nodeMachine.provide({
      actors: sharedNodeActors(() => ({ exec, plan: () => plan, poll: { initialMs: 20, maxMs: 50 } })),
    });
    const actor = createActor(machine, {
      input: {
        node: 'win2',
        revision: 'r1',
        ...planOrder(plan),
        mode: 'autocorrect',
        paused: false,
        limits: { ...LIMITS, rebootTimeoutMs: 600 },
      },
    });
    actor.start();
    const done = await waitFor(actor, (s) => s.matches('unreachable'), { timeout: 10_000 });
    expect(done.context.lastError).toMatchObject({ code: 'GC_REBOOT_TIMEOUT' });
    actor.stop();
  });

  describe('a reboot request that never left (rebootTimeout here is 5 s: waiting it out fails the test)', () => {
    const settled = (s: { value: unknown }) => ['verified', 'stalled', 'unreachable'].includes(String(s.value));

    it('refused by the executor (connect EAGAIN on the host process socket): asked again, one reboot, verified', async () => {
      const host = WindowsHost.fresh({ hostname: 'win3' });
      const inner = new SimExecutor({ host, shells, rebootMs: 150 });
      let refused = 0;
      const exec = Object.assign(Object.create(inner) as SimExecutor, {
        run: (cmd: Command, opts: RunOptions) =>
          cmd.label === 'reboot' && refused++ === 0
            ? Promise.reject(markSent(errors.GC_CONNECT('cannot reach the simulated host win3: connect EAGAIN'), false))
            : inner.run(cmd, opts),
      });
      const actor = drive(exec, windowsPlan(windowsInput({ node: 'win3' })));
      const done = await waitFor(actor, settled, { timeout: 4_000 });
      expect(done.value, JSON.stringify(done.context.lastError)).toBe('verified');
      expect({ refused, reboots: inner.stats.reboots, boots: host.state.bootCount }).toEqual({ refused: 2, reboots: 1, boots: 2 });
      expect(done.context.rebootsThisRevision).toBe(1);
      actor.stop();
    });

    it('refused while waiting for the disruption budget: asked again, one reboot, verified', async () => {
      const host = WindowsHost.fresh({ hostname: 'win4' });
      const exec = new SimExecutor({ host, shells, rebootMs: 150 });
      let refusals = 0;
      const beforeDisruptive = async (what: string) => {
        if (what === 'reboot' && refusals++ === 0) throw errors.GC_CLUSTER_FENCED('win4: this member may not change the node now');
      };
      const actor = drive(exec, windowsPlan(windowsInput({ node: 'win4' })), { beforeDisruptive });
      const done = await waitFor(actor, settled, { timeout: 4_000 });
      expect(done.value, JSON.stringify(done.context.lastError)).toBe('verified');
      expect({ reboots: exec.stats.reboots, boots: host.state.bootCount }).toEqual({ reboots: 1, boots: 2 });
      actor.stop();
    });
  });
});
