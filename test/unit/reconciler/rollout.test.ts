// The failure budget with a shared record (cluster mode): a failure another process recorded halts this one's
// rollout, a cleared one lets it go on, and a node that got its slot only after another's failure freed it
// reads the record again and does not go down.

import { describe, expect, it } from 'vitest';
import { localCoordination } from '../../../src/reconciler/local-coordination.js';
import { Rollout, type SharedFailures, type SharedSlots } from '../../../src/reconciler/rollout.js';

/** The shared record as etcd would hold it; `onRefresh` runs when a node reads it again. */
function sharedFailures(onRefresh: () => void = () => undefined) {
  const failed = new Map<string, Set<string>>();
  const shared: SharedFailures = {
    record: (node, revision) => void failed.set(revision, new Set([...(failed.get(revision) ?? []), node])),
    clear: (node, revision) => void failed.get(revision)?.delete(node),
    list: (revision) => [...(failed.get(revision) ?? [])],
    revisions: () => [...failed].filter(([, nodes]) => nodes.size > 0).map(([revision]) => revision),
    refresh: async () => onRefresh(),
  };
  return { failed, shared };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('rollout with a shared failure record', () => {
  it("another member's failure halts the revision here; its recovery wakes the waiting node", async () => {
    const { failed, shared } = sharedFailures();
    const rollout = new Rollout({ maxUnavailable: 1, failureBudget: 1, slots: localCoordination().slots, failures: shared });
    failed.set('rev', new Set(['win-2']));
    expect(rollout.isHalted('rev')).toBe(true);
    expect(rollout.haltReason('rev')).toContain('win-2 failed on it');
    let granted = false;
    const acquiring = rollout.acquire('win-1', 'rev').then(() => {
      granted = true;
    });
    await settled();
    expect(granted).toBe(false);
    // Cleared elsewhere (win-2 recovered under another member): the shared record changes, waiters look again.
    failed.get('rev')?.delete('win-2');
    rollout.refresh();
    await acquiring;
    expect(rollout.holders).toEqual(['win-1']);
  });

  it('a failure recorded here is recorded in the shared record, and cleared there when the node recovers', () => {
    const { failed, shared } = sharedFailures();
    const rollout = new Rollout({ maxUnavailable: 1, failureBudget: 2, slots: localCoordination().slots, failures: shared });
    expect(rollout.recordFailure('win-1', 'rev')).toBe(false);
    expect([...(failed.get('rev') ?? [])]).toEqual(['win-1']);
    failed.get('rev')?.add('win-3');
    expect(rollout.isHalted('rev')).toBe(true);
    rollout.recovered('win-1');
    expect(rollout.failures('rev')).toEqual(['win-3']);
  });

  it('a slot freed by a failing node of another member: the record is read again and the node does not go down', async () => {
    const { failed, shared } = sharedFailures(() => failed.set('rev', new Set(['win-2'])));
    const released: string[] = [];
    const slots: SharedSlots = { acquire: async () => undefined, take: () => undefined, release: (node) => void released.push(node) };
    const rollout = new Rollout({ maxUnavailable: 1, failureBudget: 1, slots, failures: shared });
    let granted = false;
    void rollout.acquire('win-1', 'rev').then(() => {
      granted = true;
    });
    await settled();
    expect(granted).toBe(false);
    expect(rollout.holders).toEqual([]);
    expect(released).toContain('win-1');
    expect(rollout.haltReason('rev')).toContain('win-2 failed on it');
  });

  it('a node that recovers on a later revision ends the halt it caused on an earlier one, here and in the shared record', async () => {
    const { failed, shared } = sharedFailures();
    const rollout = new Rollout({ maxUnavailable: 1, failureBudget: 1, slots: localCoordination().slots, failures: shared });
    rollout.recordFailure('win-1', 'c1');
    failed.set('c0', new Set(['win-1']));
    let granted = false;
    const acquiring = rollout.acquire('win-2', 'c1').then(() => {
      granted = true;
    });
    await settled();
    expect(granted).toBe(false);
    // win-1 converged on c2 (its pin fixed): nothing of it counts on c1 (nor on c0, recorded elsewhere).
    rollout.recovered('win-1');
    await acquiring;
    expect(rollout.isHalted('c1')).toBe(false);
    expect([...failed].flatMap(([, nodes]) => [...nodes])).toEqual([]);
  });

  it('resume releases a halt by hand: the failures so far no longer count, a new one halts again', async () => {
    const { shared } = sharedFailures();
    const rollout = new Rollout({ maxUnavailable: 2, failureBudget: 1, slots: localCoordination().slots, failures: shared });
    expect(rollout.resume('c1')).toEqual([]);
    expect(rollout.resumed('c1')).toBeUndefined();
    rollout.recordFailure('win-1', 'c1');
    const acquiring = rollout.acquire('win-2', 'c1');
    expect(rollout.resume('c1', new Date('2026-11-26T10:00:00Z'))).toEqual(['win-1']);
    await acquiring;
    expect(rollout.resumed('c1')).toEqual({ at: '2026-11-26T10:00:00.000Z', released: ['win-1'] });
    expect(rollout.isHalted('c1')).toBe(false);
    expect(rollout.recordFailure('win-3', 'c1')).toBe(true);
  });
});
