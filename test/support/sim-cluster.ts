// Every node of a desired state on its simulated host, at once: tests that drive a cluster without a daemon
// (the daemon and the scale benchmark make their hosts one at a time through SimCluster).

import { SimCluster, type SimClusterOptions } from '../../src/cli/sim-cluster.js';
import type { SimExecutor } from '../../src/dataplane/sim-executor.js';
import type { DesiredState } from '../../src/inventory/desired-state.js';

export function simCluster(state: DesiredState, options: SimClusterOptions): Map<string, SimExecutor> {
  const cluster = new SimCluster(options);
  for (const node of state.nodes) cluster.executor(node);
  return cluster.executors;
}
