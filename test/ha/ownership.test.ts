// Cluster mode, issue 19: a fresh cluster of three members on a real three-member etcd converges the example
// inventory on lab hosts with every node driven by exactly one member, and the work spread across members.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersByHost, HaCluster, NODES } from './ha-cluster.js';

const MEMBERS = ['m1', 'm2', 'm3'];

describe('cluster mode: ownership', () => {
  let ha: HaCluster;
  beforeAll(async () => {
    ha = await HaCluster.start({ members: MEMBERS, etcdPort: 23710 });
  }, 90_000);
  afterAll(async () => {
    await ha?.stop();
  }, 60_000);

  it('each node is driven by exactly one member, and the work is spread across members', { timeout: 180_000 }, async () => {
    // The members come up first, then the inventory arrives: a fresh cluster.
    await Promise.all(MEMBERS.map((m) => ha.startMember(m)));
    await ha.registered(MEMBERS);
    const sha = ha.pushInventory();
    await ha.converged(sha);

    const callers = await callersByHost(ha.lab);
    const owners = await ha.owners();
    console.log(`owners: ${JSON.stringify(owners)}; callers: ${JSON.stringify(callers)}`);
    for (const node of NODES) expect(callers[node], `${node} driven by ${callers[node]?.join(', ')}`).toHaveLength(1);
    for (const node of NODES) expect(callers[node]).toEqual([owners[node]]);
    const used = new Set(Object.values(callers).flat());
    expect(used.size).toBeGreaterThanOrEqual(2);
  });
});
