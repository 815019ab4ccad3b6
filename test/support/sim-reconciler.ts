// The reconciler in the test's process over simulated hosts made for a desired state, with limits short enough
// for unit tests (settle 20 ms, backoff 20-200 ms) and no simulated latency: what the reconciler tests drive.

import type { SimExecutor, SimShells } from '../../src/dataplane/sim-executor.js';
import type { DesiredState } from '../../src/inventory/desired-state.js';
import { Reconciler, type ReconcilerOptions } from '../../src/reconciler/reconciler.js';
import { StatusStore } from '../../src/reconciler/status-store.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { simCluster } from './sim-cluster.js';

const LIMITS = { settleMs: 20, rebootTimeoutMs: 10_000, backoffBaseMs: 20, backoffMaxMs: 200 };

/** The caller stops `reconciler` (an afterEach). */
export function simReconciler(
  state: DesiredState,
  options: { shells: SimShells; rebootMs: number; roles?: ReconcilerOptions['roles'] },
): { executors: Map<string, SimExecutor>; status: StatusStore; reconciler: Reconciler; host: (name: string) => WindowsHost } {
  const executors = simCluster(state, { shells: options.shells, rebootMs: options.rebootMs, latencyMs: 0 });
  const status = new StatusStore();
  const reconciler = new Reconciler({
    status,
    access: (spec) => ({ exec: executors.get(spec.name) as SimExecutor, poll: { initialMs: 10, maxMs: 40 } }),
    limits: LIMITS,
    ...(options.roles ? { roles: options.roles } : {}),
  });
  const host = (name: string) => (executors.get(name) as SimExecutor).host as WindowsHost;
  return { executors, status, reconciler, host };
}
