// The node machine with scripted actors and fake timers: every transition of DESIGN section 5.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { errors, markSent } from '../../../src/errors.js';
import { type NodeMachineInput, nodeMachine, type PhaseResult } from '../../../src/state-machines/node-machine.js';

// A Windows plan: prereqs and testSigning batch their reboots (one reboot after testSigning serves both).
const WINDOWS = ['prereqs', 'testSigning', 'openstack', 'vrouter', 'driver', 'verify'];
const WINDOWS_BATCH = ['prereqs', 'testSigning'];
const LINUX = ['prereqs', 'openstack', 'vrouter', 'verify'];

type Script = (phase: string, call: number, dryRun: boolean, w: World) => PhaseResult | Error;

interface World {
  calls: { phase: string; revision: string; dryRun: boolean }[];
  reboots: number;
  bootId: string;
  /** When false, the node never comes back from a reboot. */
  returns: boolean;
  deconfigured: boolean;
  /** How many boot-id reads fail (the connection refused) before one answers. */
  bootIdFailures: number;
  /** Reboot requests made (sent or not), and what the n-th fails with: marked never sent, the node is untouched. */
  issued: number;
  issue?: (attempt: number, w: World) => Error | undefined;
}

const ok: PhaseResult = { inDesiredState: true, rebootRequested: false };
const reboot: PhaseResult = { inDesiredState: false, rebootRequested: true };
const err = (code: string, retryable: boolean) => Object.assign(new Error(code), { code, retryable });

function start(script: Script, input: Partial<NodeMachineInput> = {}, world: Partial<World> = {}) {
  const w: World = { calls: [], reboots: 0, bootId: 'boot-1', returns: true, deconfigured: false, bootIdFailures: 0, issued: 0, ...world };
  const count = new Map<string, number>();
  const machine = nodeMachine.provide({
    actors: {
      runPhase: fromPromise(async ({ input: i }) => {
        w.calls.push({ phase: i.phase, revision: i.revision, dryRun: i.dryRun });
        const n = (count.get(i.phase) ?? 0) + 1;
        count.set(i.phase, n);
        const r = script(i.phase, n, i.dryRun, w);
        if (r instanceof Error) throw r;
        return r;
      }),
      readBootId: fromPromise(async () => {
        if (w.bootIdFailures > 0 && w.bootIdFailures--) throw err('GC_CONNECT', true);
        return w.bootId;
      }),
      issueReboot: fromPromise(async () => {
        w.issued++;
        const failure = w.issue?.(w.issued, w);
        if ((failure as { sent?: boolean } | undefined)?.sent === false) throw failure;
        w.reboots++;
        if (w.returns) w.bootId = `boot-${w.reboots + 1}`;
        // Sent, and the answer lost: the node reboots all the same (a real reboot ends the session).
        if (failure) throw failure;
      }),
      waitForNewBoot: fromPromise(async ({ input: i, signal }) => {
        while (w.bootId === i.previousBootId) {
          await new Promise((r) => setTimeout(r, 1000));
          if (signal.aborted) throw new Error('aborted');
        }
        return w.bootId;
      }),
      checkReadiness: fromPromise<void, { node: string; nonce: string }>(async () => {}),
      deconfigure: fromPromise(async () => {
        w.deconfigured = true;
      }),
    },
  });
  const actor = createActor(machine, {
    input: {
      node: 'win1',
      revision: 'r1',
      phases: WINDOWS,
      rebootBatch: input.phases ? [] : WINDOWS_BATCH,
      mode: 'autocorrect',
      paused: false,
      limits: { settleMs: 5000, rebootTimeoutMs: 60_000 },
      ...input,
    },
  });
  actor.start();
  return { actor, w, machine };
}

/** Lets promise actors settle and timers fire, up to `ms` of fake time. */
async function run(ms = 0) {
  for (let i = 0; i < 50; i++) await vi.advanceTimersByTimeAsync(ms / 50);
  await vi.advanceTimersByTimeAsync(0);
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('node machine', () => {
  it('a fresh Windows node: features and test signing share one reboot, then it converges and is verified', async () => {
    const { actor, w } = start((phase, call) => ((phase === 'prereqs' || phase === 'testSigning') && call === 1 ? reboot : ok));
    await run(20_000);
    expect(actor.getSnapshot().value).toBe('verified');
    expect(w.reboots).toBe(1);
    expect(w.calls.map((c) => c.phase)).toEqual([
      'prereqs',
      'testSigning',
      'prereqs',
      'testSigning',
      'openstack',
      'vrouter',
      'driver',
      'verify',
    ]);
    expect(actor.getSnapshot().context).toMatchObject({ lastAppliedRevision: 'r1', lastAttemptedRevision: 'r1', rebootsThisRevision: 1 });
  });

  it('a batch of one (no test signing) reboots right after prereqs, before the next phase runs', async () => {
    const phases = WINDOWS.filter((p) => p !== 'testSigning');
    const { actor, w } = start((phase, call) => (phase === 'prereqs' && call === 1 ? reboot : ok), { phases, rebootBatch: ['prereqs'] });
    await run(20_000);
    expect(actor.getSnapshot().value).toBe('verified');
    expect(w.reboots).toBe(1);
    expect(w.calls.map((c) => c.phase)).toEqual(['prereqs', 'prereqs', 'openstack', 'vrouter', 'driver', 'verify']);
  });

  it('a phase that does not batch (the vRouter MSI asking 3010) reboots at its own end, not at the batch', async () => {
    const { actor, w } = start((phase, call) => (phase === 'vrouter' && call === 1 ? reboot : ok));
    await run(20_000);
    expect(actor.getSnapshot().value).toBe('verified');
    expect(w.reboots).toBe(1);
    expect(w.calls.map((c) => c.phase)).toEqual([
      ...['prereqs', 'testSigning', 'openstack', 'vrouter'],
      ...['prereqs', 'testSigning', 'openstack', 'vrouter', 'driver', 'verify'],
    ]);
  });

  it('a Linux node reboots at once when a phase asks (no rebootWait there), and never otherwise', async () => {
    const quiet = start(() => ok, { phases: LINUX });
    await run(1000);
    expect(quiet.w.reboots).toBe(0);
    const { actor, w } = start((phase, call) => (phase === 'vrouter' && call === 1 ? reboot : ok), { phases: LINUX });
    await run(20_000);
    expect(w.reboots).toBe(1);
    expect(actor.getSnapshot().value).toBe('verified');
  });

  it('the same phase asking for a reboot again after its reboot stalls with GC_REBOOT_LOOP', async () => {
    const { actor, w } = start((phase) => (phase === 'testSigning' ? reboot : ok));
    await run(30_000);
    expect(actor.getSnapshot().value).toBe('stalled');
    expect(actor.getSnapshot().context.lastError).toMatchObject({
      code: 'GC_REBOOT_LOOP',
      retryable: false,
      message: expect.stringMatching(/testSigning asked for a reboot again/),
    });
    expect(w.reboots).toBe(1);
  });

  it('a boot id read that fails before the reboot counts no reboot: the retry reboots, no GC_REBOOT_LOOP', async () => {
    // Seen at 10,000 simulated nodes: a connect refused (EAGAIN) while reading the boot id sent the node to
    // backoff with the reboot already counted; testSigning asked again and the node stalled as a reboot loop,
    // with no reboot ever issued (and the failure budget halted the rollout).
    // The retry resumes at testSigning, which still asks (nothing was rebooted), as a real node's check would.
    const asks = (phase: string, call: number) => (phase === 'prereqs' && call === 1) || (phase === 'testSigning' && call <= 2);
    const { actor, w } = start(
      (phase, call) => (asks(phase, call) ? reboot : ok),
      {},
      {
        bootIdFailures: 1,
      },
    );
    await run(30_000);
    expect(actor.getSnapshot().value).toBe('verified');
    expect(w.reboots).toBe(1);
    expect(actor.getSnapshot().context).toMatchObject({ rebootsThisRevision: 1 });
  });

  describe('a reboot request that fails', () => {
    const refused = () => markSent(errors.GC_CONNECT('cannot reach the simulated host win1: connect EAGAIN'), false);
    const dropped = () => markSent(errors.GC_CONNECTION_LOST('the connection dropped while a command (reboot) ran'), true);
    const askUntilRebooted = (phase: string, _call: number, _dryRun: boolean, w: World) =>
      phase === 'vrouter' && w.reboots === 0 ? reboot : ok;

    it('never sent (connect EAGAIN at 10,000 simulated nodes): asked again after a backoff, not waited rebootTimeout for', async () => {
      const world: Partial<World> = { issue: (n) => (n === 1 ? refused() : undefined) };
      const { actor, w } = start((phase, call) => (phase === 'vrouter' && call === 1 ? reboot : ok), { phases: LINUX }, world);
      await run(0);
      expect(actor.getSnapshot().matches({ rebooting: 'issueBackoff' })).toBe(true);
      expect(actor.getSnapshot().context).toMatchObject({ lastError: { code: 'GC_CONNECT' }, connectFailures: 1 });
      // rebootTimeout is 60 s here: before the fix the node sat in waitingForBoot for all of it, then went unreachable.
      await run(20_000);
      expect(actor.getSnapshot().value).toBe('verified');
      expect({ issued: w.issued, reboots: w.reboots }).toEqual({ issued: 2, reboots: 1 });
      expect(actor.getSnapshot().context.rebootsThisRevision).toBe(1);
    });

    it('sent and the answer lost (the session dropped): the boot id decides, and there is never a second reboot', async () => {
      const back = start((phase, call) => (phase === 'vrouter' && call === 1 ? reboot : ok), { phases: LINUX }, { issue: dropped });
      await run(20_000);
      expect(back.actor.getSnapshot().value).toBe('verified');
      expect({ issued: back.w.issued, reboots: back.w.reboots }).toEqual({ issued: 1, reboots: 1 });

      const gone = start(
        (phase, call) => (phase === 'vrouter' && call === 1 ? reboot : ok),
        { phases: LINUX },
        { issue: dropped, returns: false },
      );
      await run(59_000);
      expect(gone.actor.getSnapshot().matches({ rebooting: 'waitingForBoot' })).toBe(true);
      await run(2_000);
      expect(gone.actor.getSnapshot().context.lastError).toMatchObject({ code: 'GC_REBOOT_TIMEOUT' });
      expect(gone.w.issued).toBe(1);
    });

    it('a node that rebooted by itself while the retry backed off is not rebooted again', async () => {
      const issue = (n: number, w: World) => {
        if (n > 1) return undefined;
        w.bootId = 'boot-by-hand';
        return refused();
      };
      const { actor, w } = start((phase, call) => (phase === 'vrouter' && call === 1 ? reboot : ok), { phases: LINUX }, { issue });
      await run(20_000);
      expect(actor.getSnapshot().value).toBe('verified');
      expect({ issued: w.issued, reboots: w.reboots, bootId: w.bootId }).toEqual({ issued: 1, reboots: 0, bootId: 'boot-by-hand' });
    });

    it('never sent, connection after connection: unreachable with the reboot taken back; the next pass reboots, no GC_REBOOT_LOOP', async () => {
      const { actor, w } = start(askUntilRebooted, { phases: LINUX }, { issue: (n) => (n <= 8 ? refused() : undefined) });
      await run(300_000);
      expect(actor.getSnapshot().value).toBe('unreachable');
      expect(actor.getSnapshot().context).toMatchObject({
        lastError: { code: 'GC_CONNECT' },
        rebootsThisRevision: 0,
        rebootedPhases: [],
        pendingReboot: false,
      });
      expect({ issued: w.issued, reboots: w.reboots }).toEqual({ issued: 8, reboots: 0 });
      actor.send({ type: 'resync' });
      await run(20_000);
      expect(actor.getSnapshot().value).toBe('verified');
      expect({ issued: w.issued, reboots: w.reboots }).toEqual({ issued: 9, reboots: 1 });
      expect(actor.getSnapshot().context.rebootsThisRevision).toBe(1);
    });

    it('never sent, refused for good (a host key that changed): stalled with the reboot taken back', async () => {
      const mismatch = () => markSent(errors.GC_SSH_HOSTKEY_MISMATCH('win1 presented another host key'), false);
      const { actor, w } = start(askUntilRebooted, { phases: LINUX }, { issue: mismatch });
      await run(20_000);
      expect(actor.getSnapshot().value).toBe('stalled');
      expect(actor.getSnapshot().context).toMatchObject({ lastError: { code: 'GC_SSH_HOSTKEY_MISMATCH' }, rebootsThisRevision: 0 });
      expect({ issued: w.issued, reboots: w.reboots }).toEqual({ issued: 1, reboots: 0 });
    });
  });

  it('a boot id that never changes ends unreachable with a timeout reason', async () => {
    const { actor, w } = start((phase, call) => (phase === 'prereqs' && call === 1 ? reboot : ok), {}, { returns: false });
    await run(59_000);
    expect(actor.getSnapshot().matches({ rebooting: 'waitingForBoot' })).toBe(true);
    await run(2_000);
    expect(actor.getSnapshot().value).toBe('unreachable');
    expect(actor.getSnapshot().context.lastError).toMatchObject({
      code: 'GC_REBOOT_TIMEOUT',
      message: expect.stringMatching(/did not come back with a new boot id within 60 s/),
    });
    expect(w.reboots).toBe(1);
  });

  it('a retryable error backs off exponentially (from 1 s, jittered) and retries the phase', async () => {
    const { actor } = start((phase, call) => (phase === 'vrouter' && call <= 2 ? err('GC_CONNECTION_LOST', true) : ok), { phases: LINUX });
    await run(0);
    expect(actor.getSnapshot().value).toBe('backoff');
    expect(actor.getSnapshot().context).toMatchObject({ attempt: 1, lastError: { code: 'GC_CONNECTION_LOST' } });
    await run(400);
    expect(actor.getSnapshot().value).toBe('backoff');
    await run(700);
    expect(actor.getSnapshot().context.attempt).toBe(2);
    await run(2100);
    expect(actor.getSnapshot().value).toBe('verified');
    expect(actor.getSnapshot().context.attempt).toBe(0);
  });

  it('a new revision during backoff goes straight to converging, on its own phases', async () => {
    const { actor, w } = start((phase, call) => (phase === 'vrouter' && call === 1 ? err('GC_MSI_BUSY', true) : ok), { phases: LINUX });
    await run(0);
    expect(actor.getSnapshot().value).toBe('backoff');
    actor.send({
      type: 'desired.changed',
      revision: 'r2',
      phases: ['prereqs', 'verify'],
      rebootBatch: [],
      mode: 'autocorrect',
      paused: false,
    });
    await run(0);
    expect(actor.getSnapshot().value).toBe('verified');
    expect(w.calls.slice(-2)).toEqual([
      { phase: 'prereqs', revision: 'r2', dryRun: false },
      { phase: 'verify', revision: 'r2', dryRun: false },
    ]);
    expect(actor.getSnapshot().context).toMatchObject({ lastAppliedRevision: 'r2', lastError: undefined });
  });

  it('a terminal error stalls with its code and message until a reconcile request', async () => {
    let broken = true;
    const { actor } = start((phase) => (phase === 'vrouter' && broken ? err('GC_MSI_FAILED', false) : ok), { phases: LINUX });
    await run(60_000);
    expect(actor.getSnapshot().value).toBe('stalled');
    expect(actor.getSnapshot().context.lastError).toMatchObject({ code: 'GC_MSI_FAILED', retryable: false });
    broken = false;
    actor.send({ type: 'reconcile.requested' });
    await run(0);
    expect(actor.getSnapshot().value).toBe('verified');
  });

  it('repeated connection failures make the node unreachable instead of retrying forever', async () => {
    const { actor } = start(() => err('GC_CONNECT', true), {
      phases: LINUX,
      limits: { maxConnectAttempts: 3, backoffBaseMs: 100, backoffMaxMs: 100 },
    });
    await run(5_000);
    expect(actor.getSnapshot().value).toBe('unreachable');
    expect(actor.getSnapshot().context.connectFailures).toBe(3);
  });

  it('modes at resync: apply stops checking, monitor only reports drift, autocorrect converges again', async () => {
    const drifted = (phase: string, _call: number, dryRun: boolean) =>
      phase === 'vrouter' && dryRun ? { inDesiredState: false, rebootRequested: false } : ok;
    const apply = start(drifted, { phases: LINUX, mode: 'apply' });
    await run(0);
    const before = apply.w.calls.length;
    apply.actor.send({ type: 'resync' });
    await run(0);
    expect(apply.w.calls.length).toBe(before);

    const monitor = start(drifted, { phases: LINUX, mode: 'monitor' });
    await run(0);
    monitor.actor.send({ type: 'resync' });
    await run(0);
    expect(monitor.actor.getSnapshot().value).toBe('verified');
    expect(monitor.actor.getSnapshot().context.drift).toBe(true);
    expect(monitor.w.calls.slice(-4).every((c) => c.dryRun)).toBe(true);
    // Asked to reconcile, monitor mode still only looks; the other modes do a full pass.
    const seen = monitor.w.calls.length;
    monitor.actor.send({ type: 'reconcile.requested' });
    await run(0);
    expect(monitor.w.calls.slice(seen).map((c) => c.dryRun)).toEqual([true, true, true, true]);

    const autocorrect = start(() => ok, { phases: LINUX, mode: 'autocorrect' });
    await run(0);
    autocorrect.actor.send({ type: 'resync' });
    await run(0);
    expect(autocorrect.w.calls.slice(-4).map((c) => c.dryRun)).toEqual([false, false, false, false]);
  });

  it('pause and resume; a pause during a reboot waits for the node to be back', async () => {
    const paused = start(() => ok, { phases: LINUX, paused: true });
    await run(0);
    expect(paused.actor.getSnapshot().value).toBe('paused');
    expect(paused.w.calls).toEqual([]);
    paused.actor.send({ type: 'resume' });
    await run(0);
    expect(paused.actor.getSnapshot().value).toBe('verified');

    const { actor, w } = start((phase, call) => (phase === 'vrouter' && call === 1 ? reboot : ok), { phases: LINUX });
    await run(0);
    expect(actor.getSnapshot().matches('rebooting')).toBe(true);
    actor.send({ type: 'pause' });
    expect(actor.getSnapshot().matches('rebooting')).toBe(true);
    await run(20_000);
    expect(actor.getSnapshot().value).toBe('paused');
    expect(w.reboots).toBe(1);
  });

  it('a persisted snapshot mid-reboot restores, and resync carries on with no second reboot', async () => {
    const first = start((phase, call) => (phase === 'prereqs' && call === 1 ? reboot : ok), { phases: LINUX }, { returns: false });
    await run(2_000);
    expect(first.actor.getSnapshot().matches({ rebooting: 'waitingForBoot' })).toBe(true);
    const persisted = first.actor.getPersistedSnapshot();
    first.actor.stop();
    // The daemon was killed; the node comes back meanwhile.
    first.w.bootId = 'boot-after-crash';
    const second = createActor(first.machine, { snapshot: persisted as never, input: undefined as never });
    second.start();
    second.send({ type: 'resync' });
    await run(20_000);
    expect(second.getSnapshot().value).toBe('verified');
    expect(first.w.reboots).toBe(1);
  });

  it('removal: deconfigure runs the deconfigure actor; orphan just lets go', async () => {
    const a = start(() => ok, { phases: LINUX });
    await run(0);
    a.actor.send({ type: 'node.removed', deconfigure: true, revision: 'r9' });
    await run(0);
    expect(a.actor.getSnapshot().value).toBe('removed');
    expect(a.w.deconfigured).toBe(true);
    const b = start(() => ok, { phases: LINUX });
    await run(0);
    b.actor.send({ type: 'node.removed', deconfigure: false, revision: 'r9' });
    expect(b.actor.getSnapshot().value).toBe('removed');
    expect(b.w.deconfigured).toBe(false);
  });
});
