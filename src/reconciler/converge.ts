// Converges every node of one desired state and returns how each ended: the reconciler run once, for the
// terminal demo, the crash test and benchmarks. With a snapshot store, a killed run resumes where it stood.

import type { Logger } from 'pino';
import type { DesiredState } from '../inventory/desired-state.js';
import type { Limits } from '../state-machines/node-machine.js';
import { localCoordination } from './local-coordination.js';
import type { NodeAccess } from './node-record.js';
import { Reconciler } from './reconciler.js';
import type { SnapshotStore } from './snapshot-store.js';
import { StatusStore, type TransitionRecord } from './status-store.js';

export interface NodeReport {
  node: string;
  state: string;
  reason?: string;
  reboots: number;
}

export interface ConvergeOptions {
  revision: string;
  limits?: Partial<Limits>;
  onTransition?: (node: string, t: TransitionRecord) => void;
  store?: SnapshotStore;
  concurrency?: number;
  log?: Logger;
}

export async function convergeCluster(
  state: DesiredState,
  access: (node: string) => NodeAccess,
  options: ConvergeOptions,
): Promise<NodeReport[]> {
  const status = new StatusStore();
  if (options.onTransition) {
    const onTransition = options.onTransition;
    status.on('change', (e) => {
      if (e.type === 'node' && e.transition) onTransition(e.node.name, e.transition);
    });
  }
  const reconciler = new Reconciler({
    status,
    access: (spec) => access(spec.name),
    coordination: localCoordination(options.store ? { snapshots: options.store } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const settled = reconciler.settled();
  reconciler.apply({ sha: options.revision, state });
  await settled;
  await reconciler.stop();
  await options.store?.flushAll();
  return state.nodes.map((n) => {
    const s = status.get(n.name);
    return {
      node: n.name,
      state: s?.state ?? 'unknown',
      ...(s?.lastError ? { reason: `${s.lastError.code}: ${s.lastError.message}` } : {}),
      reboots: s?.rebootCount ?? 0,
    };
  });
}
