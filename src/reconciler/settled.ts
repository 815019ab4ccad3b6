// When a revision has settled: every node of it verified on it, or stalled, unreachable or paused. The reconciler
// hands in what it holds; this file only watches the status store until that is true.

import type { NodeSpec } from '../inventory/desired-state.js';
import { SETTLED } from '../node-state.js';
import type { NodeRecord } from './node-record.js';
import { where } from './node-status.js';
import type { StatusStore } from './status-store.js';
import type { WorkQueue } from './work-queue.js';

export interface SettledView {
  queue: WorkQueue;
  status: StatusStore;
  hasRevision: () => boolean;
  specs: () => ReadonlyMap<string, NodeSpec>;
  entries: ReadonlyMap<string, NodeRecord>;
}

/** Resolves once the queue is idle and every node of the revision has settled on it. */
export function whenSettled(view: SettledView): Promise<void> {
  return new Promise((resolve) => {
    // A change seen while the queue works is looked at again once it is idle (the last sync may change nothing after).
    let armed = false;
    const check = () => {
      if (view.queue.depth > 0 || view.queue.active > 0) {
        if (!armed) {
          armed = true;
          void view.queue.drained().then(() => {
            armed = false;
            listener();
          });
        }
        return false;
      }
      if (!view.hasRevision()) return false;
      for (const name of view.specs().keys()) {
        const entry = view.entries.get(name);
        if (!entry) return false;
        const snapshot = entry.actor.getSnapshot();
        const { state } = where(snapshot);
        if (!SETTLED.has(state)) return false;
        if (state === 'verified' && snapshot.context.revision !== entry.desired.revision) return false;
      }
      return true;
    };
    const listener = () => {
      if (!check()) return;
      view.status.off('change', listener);
      resolve();
    };
    view.status.on('change', listener);
    void view.queue.drained().then(listener);
  });
}
