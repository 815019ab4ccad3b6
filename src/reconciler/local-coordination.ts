// The coordination of a single process (coordination.ts): it drives every node, its budgets are its own, its
// snapshots are files (or, for a one-shot run without a state directory, not kept), a revision its source finds
// goes straight to intake, and the fence before a command is only the node's snapshot on disk.

import { errors } from '../errors.js';
import type { Revision } from '../source/source.js';
import type { Coordination, Fence, SourceAndIntake } from './coordination.js';
import type { NodeScope } from './node-scope.js';
import type { SharedFailures, SharedSlots } from './rollout.js';
import type { NodeSnapshots } from './snapshot-store.js';

/** Every node is this process's, now and at every settle; none is driven elsewhere. */
const EVERY_NODE: NodeScope = {
  drives: () => 'yes',
  letGo: () => undefined,
  settled: () => undefined,
  startsFirst: () => false,
  elsewhere: () => undefined,
};

/** No slot beyond this process's own: the local budget is the whole budget. */
const NO_OTHER_SLOTS: SharedSlots = {
  acquire: async () => undefined,
  take: () => undefined,
  release: () => undefined,
};

/** No failure recorded beyond this process. */
const NO_OTHER_FAILURES: SharedFailures = {
  record: () => undefined,
  clear: () => undefined,
  list: () => [],
  revisions: () => [],
  refresh: async () => undefined,
};

/** Snapshots not kept (a one-shot run, a test): every node starts from the machine's initial state. */
const UNSAVED: NodeSnapshots = {
  save: () => undefined,
  load: () => ({}),
  setAside: (node) => {
    throw new Error(`${node}: no snapshot store to set a snapshot aside in`);
  },
  remove: () => undefined,
};

/** A command waits until the node's snapshot saved so far is on disk (snapshot-store.ts `flush`). */
function durableFence(snapshots: NodeSnapshots): Fence {
  return {
    guard: async (node) => {
      await snapshots.flush?.(node).catch((err: Error) => {
        throw errors.GC_SNAPSHOT_WRITE(`${node}: its state could not be saved (${err.message}); nothing sent until it is`, err);
      });
    },
    open: () => true,
  };
}

/** One process, every node: `snapshots` where node machines are saved (none: not kept). */
export function localCoordination(options: { snapshots?: NodeSnapshots & { flushAll?(): Promise<void> } } = {}): Coordination {
  const snapshots = options.snapshots ?? UNSAVED;
  let sourceAndIntake: SourceAndIntake | undefined;
  return {
    scope: EVERY_NODE,
    slots: NO_OTHER_SLOTS,
    failures: NO_OTHER_FAILURES,
    snapshots,
    fence: durableFence(snapshots),
    pins: (file) => file,
    listen: () => undefined,
    flow: (flow) => {
      sourceAndIntake = flow;
    },
    offer: async (revision: Revision) => {
      if (!sourceAndIntake) throw new Error(`revision ${revision.sha}: found before intake was connected`);
      await sourceAndIntake.deliver(revision);
    },
    applying: () => undefined,
    announce: () => undefined,
    notReady: () => undefined,
    start: async () => undefined,
    // Saves still being written land before the process goes (a kill leaves the previous one, whole).
    stop: async () => options.snapshots?.flushAll?.(),
  };
}
