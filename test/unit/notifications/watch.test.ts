// Status changes to notification events, on a status store driven by hand: a node stalls, recovers and
// drifts; a revision is accepted, rolls out and finishes; a halt is told once; a rejected revision; a later
// commit is not finished while nodes held by an earlier revision's halt have not applied theirs.

import { afterEach, describe, expect, it } from 'vitest';
import type { EventKind, NotificationEvent } from '../../../src/notifications/events.js';
import { watchStatus } from '../../../src/notifications/watch.js';
import { localCoordination } from '../../../src/reconciler/local-coordination.js';
import { Rollout } from '../../../src/reconciler/rollout.js';
import { haltOf } from '../../../src/reconciler/rollout-view.js';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { waitUntil } from '../../support/wait-until.js';

const stops: (() => void)[] = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
});

function watched(halted: string[] = []) {
  const status = new StatusStore();
  const events: NotificationEvent[] = [];
  stops.push(
    watchStatus(status, (e) => events.push(e), {
      pageUrl: 'http://gc.example',
      rollout: (sha) => ({
        halted: halted.includes(sha),
        ...(halted.includes(sha) ? { reason: `rollout of ${sha} halted` } : {}),
        failed: [],
      }),
      quietMs: 30,
    }),
  );
  const kinds = () => events.map((e) => [e.kind, e.node ?? e.revision] as [EventKind, string | undefined]);
  return { status, events, kinds };
}

/** Time for the watcher's quiet timer (30 ms) to fire, before asserting that something did not come. */
const settle = () => new Promise((r) => setTimeout(r, 300));

describe('notification events from status changes', () => {
  it('a node stalls (with its error), recovers, and drifts', () => {
    const { status, events, kinds } = watched();
    status.update('n1', { name: 'n1', state: 'converging', desiredRevision: 'r1' });
    status.update('n1', { name: 'n1', state: 'stalled', lastError: { code: 'GC_MSI_FAILED', message: 'msiexec 1603\nthe log' } });
    status.update('n1', { name: 'n1', state: 'stalled' });
    status.update('n1', { name: 'n1', state: 'verified', lastError: undefined });
    status.update('n1', { name: 'n1', state: 'verified', drift: true, mode: 'monitor' });
    status.update('n2', { name: 'n2', state: 'unreachable' });
    expect(kinds()).toEqual([
      ['node.stalled', 'n1'],
      ['node.recovered', 'n1'],
      ['drift.found', 'n1'],
      ['node.unreachable', 'n2'],
    ]);
    expect(events[0]).toMatchObject({
      summary: 'n1 stalled: GC_MSI_FAILED: msiexec 1603',
      details: { error: 'GC_MSI_FAILED: msiexec 1603\nthe log' },
      revision: 'r1',
      url: 'http://gc.example/nodes/n1',
      severity: 'error',
    });
  });

  it('a stalled node healed by a fix commit (through pending and converging) is told recovered, once (issue 39)', () => {
    const { status, kinds, events } = watched();
    status.update('n1', { name: 'n1', state: 'converging', desiredRevision: 'r1' });
    status.update('n1', { name: 'n1', state: 'stalled', lastError: { code: 'GC_MSI_FAILED', message: 'msiexec 1603' } });
    // The fix commit (or a git revert): the node starts over from its facts and converges.
    for (const state of ['pending', 'converging', 'rebooting', 'converging', 'verified', 'converging', 'verified'] as const)
      status.update('n1', { name: 'n1', state, desiredRevision: 'r2', lastError: undefined });
    status.update('n2', { name: 'n2', state: 'unreachable' });
    status.update('n2', { name: 'n2', state: 'converging' });
    status.update('n2', { name: 'n2', state: 'backoff' });
    status.update('n2', { name: 'n2', state: 'verified' });
    expect(kinds()).toEqual([
      ['node.stalled', 'n1'],
      ['node.recovered', 'n1'],
      ['node.unreachable', 'n2'],
      ['node.recovered', 'n2'],
    ]);
    expect(events[1]).toMatchObject({ summary: 'n1 recovered (was stalled)', revision: 'r2' });
  });

  it('a revision accepted, then finished once every node it changes applied it; a rejected one', async () => {
    const { status, events, kinds } = watched();
    status.recordRevision({ sha: 'r2', accepted: true, subject: 'bump' });
    status.update('a', { name: 'a', state: 'converging', desiredRevision: 'r2' });
    status.update('b', { name: 'b', state: 'converging', desiredRevision: 'r2' });
    status.update('a', { name: 'a', state: 'verified', lastAppliedRevision: 'r2' });
    await settle();
    expect(kinds()).toEqual([['revision.accepted', 'r2']]);
    status.update('b', { name: 'b', state: 'verified', lastAppliedRevision: 'r2' });
    await waitUntil('rollout.finished for r2', () => kinds().length > 1);
    expect(kinds()).toEqual([
      ['revision.accepted', 'r2'],
      ['rollout.finished', 'r2'],
    ]);
    expect(events[1]).toMatchObject({ summary: 'r2 bump: applied on all 2 nodes it changes', url: 'http://gc.example/revisions/r2' });
    status.recordRevision({ sha: 'r3', accepted: false, errors: ['instances.yaml:3:1: bad'] });
    expect(events.at(-1)).toMatchObject({ kind: 'revision.rejected', details: { errors: ['instances.yaml:3:1: bad'] } });
  });

  it('a revision that changes no node finishes once nothing is at work; a halt is told once, and no finish after it', async () => {
    const { status, kinds } = watched(['bad']);
    status.update('a', { name: 'a', state: 'verified', desiredRevision: 'r1', lastAppliedRevision: 'r1' });
    status.recordRevision({ sha: 'r4', accepted: true });
    await waitUntil('rollout.finished for r4', () => kinds().length > 1);
    expect(kinds()).toEqual([
      ['revision.accepted', 'r4'],
      ['rollout.finished', 'r4'],
    ]);
    status.recordRevision({ sha: 'bad', accepted: true });
    status.update('a', { name: 'a', state: 'stalled', desiredRevision: 'bad' });
    status.update('b', { name: 'b', state: 'pending', desiredRevision: 'bad', waiting: 'rollout of bad halted' });
    await settle();
    status.update('b', { name: 'b', state: 'pending', desiredRevision: 'bad', waiting: 'rollout of bad halted (still)' });
    status.update('a', { name: 'a', state: 'verified', desiredRevision: 'bad' });
    await waitUntil('rollout.halted for bad', () => kinds().some(([kind]) => kind === 'rollout.halted'));
    // Nothing after: the halt is told once, and no finish comes.
    await settle();
    expect(kinds().slice(2)).toEqual([
      ['revision.accepted', 'bad'],
      ['node.stalled', 'a'],
      ['rollout.halted', 'bad'],
      ['node.recovered', 'a'],
    ]);
  });

  it('a later commit that fixes the failed node finishes only once the nodes held on the halted revision applied theirs', async () => {
    const halted = ['c1'];
    const { status, kinds } = watched(halted);
    status.recordRevision({ sha: 'c1', accepted: true });
    status.update('bad', { name: 'bad', state: 'stalled', desiredRevision: 'c1' });
    status.update('held', { name: 'held', state: 'converging', desiredRevision: 'c1', waiting: 'rollout of c1 halted' });
    status.recordRevision({ sha: 'c2', accepted: true });
    status.update('bad', { name: 'bad', state: 'verified', desiredRevision: 'c2', lastAppliedRevision: 'c2' });
    // The bad node converged on c2: the halt ends (the reconciler's rollout says so), the held node goes on.
    halted.splice(0);
    status.update('held', { name: 'held', state: 'converging', desiredRevision: 'c1', waiting: undefined });
    await settle();
    expect(kinds().filter(([kind]) => kind === 'rollout.finished')).toEqual([]);
    status.update('held', { name: 'held', state: 'verified', desiredRevision: 'c1', lastAppliedRevision: 'c1' });
    const finished = () => kinds().filter(([kind]) => kind === 'rollout.finished');
    expect(await waitUntil('rollout.finished', () => finished().length > 0 && finished())).toEqual([['rollout.finished', 'c2']]);
  });

  it('says a halt once: the summary is the rollout\'s own reason, not wrapped in a second "rollout of … halted"', async () => {
    const sha = 'c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00';
    const { slots, failures } = localCoordination();
    const rollout = new Rollout({ maxUnavailable: 1, failureBudget: 1, slots, failures });
    const status = new StatusStore();
    const events: NotificationEvent[] = [];
    stops.push(
      watchStatus(status, (e) => events.push(e), { pageUrl: 'http://gc.example', rollout: (r) => haltOf(rollout, r), quietMs: 30 }),
    );
    status.recordRevision({ sha, accepted: true });
    status.update('a', { name: 'a', state: 'stalled', desiredRevision: sha });
    rollout.recordFailure('a', sha);
    status.update('b', { name: 'b', state: 'pending', desiredRevision: sha, waiting: rollout.haltReason(sha) as string });
    await settle();
    const halted = events.find((e) => e.kind === 'rollout.halted');
    expect(halted?.summary).toBe('rollout of c0ffee00c0ff halted: a failed on it (failure budget 1)');
    expect(halted?.summary.match(/halted/g)).toHaveLength(1);
  });
});
