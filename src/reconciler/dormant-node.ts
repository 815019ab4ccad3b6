// A settled node without a live machine: once a node settles (verified, stalled, unreachable, paused) its xstate
// actor is stopped and this stands in for it, holding the machine's snapshot (what every look at the node reads:
// its state, context, `matches`) and its persisted form. The first event sent to it starts a new actor from that
// snapshot and hands the event on: a revision that touches the node, a resync, a reconcile request.
// Measured: a live node actor with its subscription is about 5.6 KiB, its snapshot about 0.5 KiB (a scratch
// script of 2,000 verified node machines, heapUsed after a full collection): about 50 MiB at 10,000 nodes.

import type { AnyStateMachine } from 'xstate';
import { RESTING } from '../node-state.js';
import type { NodeEvent } from '../state-machines/node-machine.js';
import { type LaunchHooks, launchNode } from './node-launch.js';
import { dropRuntime, launched, type NodeHandle, type NodeRecord, type NodeSnapshot } from './node-record.js';
import { where } from './node-status.js';
import type { SavedNode } from './saved-node.js';

export class DormantNode implements NodeHandle {
  constructor(
    private readonly snapshot: NodeSnapshot,
    private readonly persisted: unknown,
    private readonly wake: (persisted: unknown) => NodeHandle,
  ) {}

  getSnapshot(): NodeSnapshot {
    return this.snapshot;
  }

  getPersistedSnapshot(): unknown {
    return this.persisted;
  }

  /** Starts the node's machine again from its snapshot, and gives it the event. */
  send(event: NodeEvent): void {
    this.wake(this.persisted).send(event);
  }

  stop(): void {}
}

/**
 * Puts the entry's actor to rest if it is still the node's, live, and settled (called after the transition that
 * settled it, never from inside its own observer). The first event after starts a new actor from the snapshot;
 * that start is not a look at the node (it only restores what the rested node showed), the event's transition is.
 */
export function restNode(entry: NodeRecord, machine: AnyStateMachine, hooks: LaunchHooks): void {
  const actor = entry.actor;
  if (actor instanceof DormantNode || !hooks.current()) return;
  const snapshot = actor.getSnapshot();
  if (snapshot.status !== 'active' || !RESTING.has(where(snapshot).state)) return;
  const { value, context } = snapshot;
  const wake = (persisted: unknown): NodeHandle => {
    let started = false;
    const { node, revision, phases, rebootBatch, mode, paused, limits } = context;
    const observe = (snap: NodeSnapshot) => started && hooks.observe(snap);
    launchNode(machine, entry, { node, revision, phases, rebootBatch, mode, paused, limits }, persisted as SavedNode['snapshot'], {
      ...hooks,
      observe,
    });
    started = true;
    return entry.actor;
  };
  launched(entry, new DormantNode(machine.resolveState({ value, context }) as NodeSnapshot, actor.getPersistedSnapshot(), wake));
  // Its runtime is built again when an actor asks for it (node-runtime.ts).
  dropRuntime(entry);
  actor.stop();
}
