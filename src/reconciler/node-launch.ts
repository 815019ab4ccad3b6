// Starting a node's machine, fresh or from its checked snapshot, so that nothing the machine does can throw
// out of the process; and how a snapshot that was set aside is made known.

import { basename } from 'node:path';
import { type AnyStateMachine, createActor } from 'xstate';
import { errors } from '../errors.js';
import type { NodeMachineInput } from '../state-machines/node-machine.js';
import { withRevision } from './desired-node.js';
import { desire, launched, type NodeActor, type NodeRecord, type NodeSnapshot } from './node-record.js';
import type { Restore, SavedNode } from './saved-node.js';
import type { NodeSnapshots } from './snapshot-store.js';
import type { StatusStore } from './status-store.js';

export interface LaunchHooks {
  observe: (snapshot: NodeSnapshot) => void;
  /** The entry is still the node's: a replaced or forgotten one reports nothing. */
  current: () => boolean;
  status: StatusStore;
}

/**
 * Makes the entry's actor and starts it. An error inside the machine goes to its error observer (xstate
 * throws an unobserved one from a timer, which would end the process): logged, and the node shown stalled.
 */
export function launchNode(
  machine: AnyStateMachine,
  entry: NodeRecord,
  input: NodeMachineInput,
  snapshot: SavedNode['snapshot'] | undefined,
  hooks: LaunchHooks,
): void {
  const actor = createActor(machine, snapshot ? { snapshot: snapshot as never, input } : { input }) as unknown as NodeActor;
  launched(entry, actor);
  const mine = () => entry.actor === actor && hooks.current();
  actor.subscribe({
    next: (snap) => {
      if (mine()) hooks.observe(snap);
    },
    error: (err) => {
      entry.log.error({ err }, 'node machine failed');
      if (!mine()) return;
      const name = entry.name;
      const message = `the node machine failed: ${(err as Error)?.message ?? String(err)}`;
      hooks.status.update(name, { name, state: 'stalled', lastError: { code: errors.GC_INTERNAL.code, message } }, message);
    },
  });
  actor.start();
}

/** Says, in the log, the node's conditions and its timeline, that its snapshot was set aside and why. */
export function noteSetAside(status: StatusStore, entry: NodeRecord, setAside: { file: string; reason: string }): void {
  const name = entry.name;
  const file = basename(setAside.file);
  entry.log.warn({ file: setAside.file, reason: setAside.reason }, 'snapshot set aside; the node starts over from its facts');
  status.update(name, { name, snapshotSetAside: { file, reason: setAside.reason, at: new Date().toISOString() } });
  status.note(name, 'snapshot.set-aside', `snapshot set aside as ${file} (${setAside.reason}); starting over from the node's facts`);
}

/**
 * Launches a new entry's machine, from its checked snapshot when there is one (`launch` with the snapshot and
 * input). Returns the saved node it was restored from, or undefined when it started fresh or was set aside.
 */
export function restoreNode(
  { saved, setAside }: Restore,
  entry: NodeRecord,
  input: NodeMachineInput,
  sha: string,
  { store, status }: { store: NodeSnapshots; status: StatusStore },
  launch: (snapshot: SavedNode['snapshot'] | undefined, input: NodeMachineInput) => void,
): SavedNode | undefined {
  launch(saved?.snapshot, input);
  let restored = saved;
  if (saved && entry.actor.getSnapshot().status === 'error') {
    // The last guard: checked, yet the machine still failed on it. Its file is still the one read (an errored
    // snapshot is never saved), so it is set aside like any other, and the node starts over.
    entry.actor.stop();
    const reason = 'the node machine failed on restoring it';
    setAside = { file: store.setAside(entry.name, reason), reason };
    restored = undefined;
    desire(entry, withRevision(entry.desired, sha));
    launch(undefined, { ...input, revision: sha });
  }
  if (setAside) noteSetAside(status, entry, setAside);
  return restored;
}
