// A settled node's actor put to rest (dormant-node.ts): its snapshot stands in for it, every look reads the
// same state and context, and the first event starts a new actor from the snapshot and is handed to it. The
// restart itself is no look at the node (the rested node already showed that state); the event's step is.

import { describe, expect, it } from 'vitest';
import { type createActor, fromPromise } from 'xstate';
import { DormantNode, restNode } from '../../../src/reconciler/dormant-node.js';
import { type LaunchHooks, launchNode } from '../../../src/reconciler/node-launch.js';
import type { NodeRecord, NodeSnapshot } from '../../../src/reconciler/node-record.js';
import { where } from '../../../src/reconciler/node-status.js';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { type NodeMachineInput, nodeMachine } from '../../../src/state-machines/node-machine.js';
import { waitUntil } from '../../support/wait-until.js';

const input: NodeMachineInput = {
  node: 'node-1',
  revision: 'r1',
  phases: ['hostConfig', 'vrouter'],
  rebootBatch: [],
  mode: 'autocorrect',
  paused: false,
  limits: {},
};

/** Every phase passes at once, and the phases run are counted. */
function machine(ran: string[]) {
  return nodeMachine.provide({
    actors: {
      runPhase: fromPromise(async ({ input: i }: { input: { phase: string } }) => {
        ran.push(i.phase);
        return { inDesiredState: true, rebootRequested: false };
      }),
    } as never,
  });
}

const settledIn = (seen: NodeSnapshot[], state: string) =>
  waitUntil(`a snapshot in ${state}`, () => seen.some((s) => where(s).state === state));

describe('restNode', () => {
  it('stops a settled actor, keeps its snapshot for every look, and wakes on the next event', async () => {
    const ran: string[] = [];
    const m = machine(ran);
    const seen: NodeSnapshot[] = [];
    const entry = { name: 'node-1', log: { error: () => undefined } } as unknown as NodeRecord;
    const hooks: LaunchHooks = { observe: (s) => seen.push(s), current: () => true, status: new StatusStore() };
    launchNode(m, entry, input, undefined, hooks);
    await settledIn(seen, 'verified');
    expect(ran).toEqual(['hostConfig', 'vrouter']);
    const live = entry.actor as ReturnType<typeof createActor>;
    const persisted = live.getPersistedSnapshot();

    restNode(entry, m, hooks);
    expect(entry.actor).toBeInstanceOf(DormantNode);
    expect(live.getSnapshot().status).toBe('stopped');
    const rested = entry.actor.getSnapshot();
    expect(rested.matches('verified')).toBe(true);
    expect(rested.context.lastAppliedRevision).toBe('r1');
    // What it was when it settled (the stopped actor's own says stopped, which nothing could resume).
    expect(entry.actor.getPersistedSnapshot()).toEqual(persisted);
    expect(persisted).toMatchObject({ status: 'active', value: 'verified' });

    // A new revision: a new actor from the snapshot takes the event and runs the pass; its start was not a look.
    seen.length = 0;
    entry.actor.send({
      type: 'desired.changed',
      revision: 'r2',
      phases: ['hostConfig'],
      rebootBatch: [],
      mode: 'autocorrect',
      paused: false,
    });
    expect(entry.actor).not.toBeInstanceOf(DormantNode);
    await settledIn(seen, 'verified');
    expect(seen[0] && where(seen[0]).state).toBe('converging');
    expect(ran).toEqual(['hostConfig', 'vrouter', 'hostConfig']);
    expect(entry.actor.getSnapshot().context.lastAppliedRevision).toBe('r2');
  });

  it("leaves a running node, a failed actor and an entry no longer the node's alone", async () => {
    const m = nodeMachine.provide({ actors: { runPhase: fromPromise(() => new Promise(() => undefined)) } as never });
    const entry = { name: 'node-1', log: { error: () => undefined } } as unknown as NodeRecord;
    const hooks: LaunchHooks = { observe: () => undefined, current: () => true, status: new StatusStore() };
    launchNode(m, entry, input, undefined, hooks);
    restNode(entry, m, hooks);
    expect(entry.actor).not.toBeInstanceOf(DormantNode);
    expect(where(entry.actor.getSnapshot()).state).toBe('converging');

    const verified = m.resolveState({ value: 'verified', context: entry.actor.getSnapshot().context });
    const other = { name: 'node-1', log: { error: () => undefined } } as unknown as NodeRecord;
    launchNode(m, other, input, m.getPersistedSnapshot(verified) as never, hooks);
    restNode(other, m, { ...hooks, current: () => false });
    expect(other.actor).not.toBeInstanceOf(DormantNode);
    entry.actor.stop();
    other.actor.stop();
  });
});
