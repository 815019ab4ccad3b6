// A big simulated cluster in this process for the status page at scale: the real reconciler on simulated
// hosts (one in fifty Windows), the real server on loopback. Some Windows hosts are broken the way the
// stories break one (the sim's `failVersions` fault: their vRouter MSI fails), so those nodes stall.

import { bigInventory } from '../../bench/inventory-parse.js';
import { SimCluster } from '../../src/cli/sim-cluster.js';
import { type SimExecutor, SimShells } from '../../src/dataplane/sim-executor.js';
import { parseInventory } from '../../src/inventory/parse-inventory.js';
import { Reconciler } from '../../src/reconciler/reconciler.js';
import { haltOf } from '../../src/reconciler/rollout-view.js';
import { StatusStore } from '../../src/reconciler/status-store.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { listenOnLoopback, statusServer } from '../support/status-server.js';

export interface BigCluster {
  url: string;
  status: StatusStore;
  reconciler: Reconciler;
  /** The nodes whose hosts fail their MSI install. */
  broken: string[];
  stop(): Promise<void>;
}

/** Starts the cluster and waits until every node settled (verified, or stalled for the broken ones). */
export async function startBigCluster(nodes: number, brokenEvery: number): Promise<BigCluster> {
  const result = parseInventory({
    instances: { path: 'instances.yaml', text: bigInventory(nodes, { windowsEvery: 50, pad: 4 }) },
    nodeFiles: [],
    repoFile: { path: 'groundcrew.yaml', text: 'rollout:\n  maxUnavailable: "100%"\n  failureBudget: "100%"\n' },
  });
  if (!result.ok) throw new Error(`inventory is invalid: ${result.errors[0]?.message}`);
  const sim = new SimCluster({ shells: await SimShells.create(), rebootMs: 20, latencyMs: 0 });
  const windows = result.state.nodes.filter((n) => n.os === 'windows');
  const broken = windows.filter((_, i) => i % brokenEvery === 1);
  for (const spec of broken) ((sim.executor(spec) as SimExecutor).host as WindowsHost).state.faults.failVersions = ['5.0.1'];
  const status = new StatusStore();
  const reconciler = new Reconciler({
    status,
    access: (spec) => ({ exec: sim.executor(spec), poll: { initialMs: 10, maxMs: 40 } }),
    limits: { settleMs: 10, backoffBaseMs: 20, backoffMaxMs: 200 },
    concurrency: 64,
  });
  const server = statusServer(status, {
    reconcile: (n) => reconciler.request(n),
    plan: (n) => reconciler.plan(n),
    rollout: (sha) => haltOf(reconciler.rollout, sha),
  });
  const url = await listenOnLoopback(server);
  const settled = reconciler.settled();
  status.recordRevision({ sha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', accepted: true, subject: 'the big inventory' });
  reconciler.apply({ sha: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678', state: result.state });
  await settled;
  return {
    url,
    status,
    reconciler,
    broken: broken.map((n) => n.name),
    async stop() {
      await server.close();
      await reconciler.stop();
    },
  };
}
