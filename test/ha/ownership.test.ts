// Cluster mode, issue 19: a fresh cluster of three members on a real three-member etcd converges the example
// inventory on lab hosts with every node driven by exactly one member, the work spread across members, and
// maxUnavailable: 1 held cluster-wide (never two hosts rebooting at once, never two budget slots seen taken).

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleDisruption } from './disruption.js';
import { BIN, callersByHost, NODES } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

const MEMBERS = ['m1', 'm2', 'm3'];

describe('cluster mode: ownership', () => {
  const { ha } = haSuite({ members: MEMBERS, etcdPort: 23710 });

  it('each node is driven by exactly one member, and the work is spread across members', { timeout: 180_000 }, async () => {
    // The members come up first, then the inventory arrives: a fresh cluster.
    await ha.startMembers();
    // Watched while the cluster converges: hosts down for a reboot (every reboot the lab makes), and budget slots held.
    const disruption = sampleDisruption(ha);
    const sha = ha.pushInventory();
    await ha.converged(sha).finally(() => disruption.stop());
    const { maxDown, maxSlots, overlaps } = await disruption.stop();
    expect(overlaps, 'two hosts down at once').toEqual([]);
    const rebooted = ha.lab.hosts.filter((h) => h.reboots > 0).length;
    expect(rebooted).toBeGreaterThanOrEqual(2);
    expect(maxDown).toBe(1);
    expect(maxSlots).toBe(1);

    const callers = await callersByHost(ha.lab);
    const owners = await ha.owners();
    console.log(`owners: ${JSON.stringify(owners)}; callers: ${JSON.stringify(callers)}`);
    for (const node of NODES) expect(callers[node], `${node} driven by ${callers[node]?.join(', ')}`).toHaveLength(1);
    for (const node of NODES) expect(callers[node]).toEqual([owners[node]]);
    // Spread: every member drives some of the six (rendezvous hashing gives each of m1, m2, m3 two of them).
    const used = new Set(Object.values(callers).flat());
    expect([...used].sort()).toEqual(MEMBERS);

    // `groundcrew cluster status` shows the same: three members with live leases, each with the nodes it drives.
    const out = execFileSync(process.execPath, [BIN, 'cluster', 'status', '--json', '--config', join(ha.dir, 'm1.yaml')], {
      encoding: 'utf8',
    });
    const view = JSON.parse(out) as { members: { name: string; ttl: number; nodes: string[] }[]; slots: string[] };
    expect(view.members.map((m) => m.name).sort()).toEqual(MEMBERS);
    for (const m of view.members) {
      expect(m.ttl).toBeGreaterThan(0);
      for (const node of m.nodes) expect(owners[node]).toBe(m.name);
    }
    expect(view.members.flatMap((m) => m.nodes).sort()).toEqual([...NODES].sort());
    expect(view.slots).toEqual([]);
  });
});
