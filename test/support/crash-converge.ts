// A daemon stand-in for the crash test: converges the example inventory on simulated hosts whose state,
// like every machine's snapshot, is kept in STATE_DIR. The test kills it with SIGKILL and starts it again.

import { join } from 'node:path';
import { SimShells } from '../../src/dataplane/sim-executor.js';
import { loadInventory } from '../../src/inventory/load-inventory.js';
import { convergeCluster } from '../../src/reconciler/converge.js';
import { SnapshotStore } from '../../src/reconciler/snapshot-store.js';
import { simCluster } from './sim-cluster.js';

const stateDir = process.argv[2] as string;
const { result } = await loadInventory(join(import.meta.dirname, '..', '..', 'inventory-repo-example'));
if (!result.ok) throw new Error('example inventory invalid');
const executors = simCluster(result.state, {
  shells: await SimShells.create(),
  rebootMs: 12_000,
  latencyMs: 10,
  dir: join(stateDir, 'hosts'),
});
process.stdout.write('STARTED\n');
const reports = await convergeCluster(
  result.state,
  (name) => ({ exec: executors.get(name) as never, poll: { initialMs: 30, maxMs: 100 } }),
  {
    revision: 'r1',
    store: new SnapshotStore(join(stateDir, 'snapshots')),
    limits: { settleMs: 50, rebootTimeoutMs: 30_000, backoffBaseMs: 50, backoffMaxMs: 200 },
    onTransition: (node, t) => process.stdout.write(`T ${node} ${t.state} ${t.phase ?? ''}\n`),
  },
);
process.stdout.write(`DONE ${JSON.stringify(reports)}\n`);
