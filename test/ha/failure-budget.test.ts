// Cluster mode, issue 19: the failure budget is global. failureBudget 1, the Windows nodes spread over several
// members, all asked for a vRouter build that fails on every one: the first node to fail halts the revision's
// rollout on every member (its failure is recorded in etcd before its budget slot is given back), so exactly one
// node fails and the others wait, "halted", on whichever member drives them. Counted per member, each member's
// first Windows node would fail. Also: /metrics of each member carries its name, and exactly one is the leader.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { NodeStatus } from '../../src/reconciler/status-store.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { waitUntil } from '../support/wait-until.js';
import { NODES, sleep } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

const MEMBERS = ['m1', 'm2', 'm3'];
const WINDOWS = ['win-compute-1', 'win-compute-2', 'win-compute-3'];
const TTL_MS = 3000;

describe('cluster mode: the failure budget across members', () => {
  const { ha } = haSuite({ members: MEMBERS, etcdPort: 23890, leaseTtl: `${TTL_MS / 1000}s` });

  /** The host's own record of vRouter 5.1.0 installs, failed or not. */
  const msi = (w: string) => (ha.lab.host(w).model as WindowsHost).state.journal.filter((j) => /^msi-(install|failed) .*5\.1\.0$/.test(j));

  it('one failure halts the revision on every member', { timeout: 240_000 }, async () => {
    await ha.startMembers();
    await ha.converged(ha.pushInventory());

    // Per-member metrics: one leader among them, and every node owned by one of them.
    const token = readFileSync(ha.tokenFile, 'utf8').trim();
    const metrics = await Promise.all(
      MEMBERS.map(async (m) => {
        const res = await fetch(`${ha.members.get(m)?.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
        return { m, text: await res.text() };
      }),
    );
    const gauge = (text: string, name: string, m: string) =>
      Number(new RegExp(`^${name}\\{member="${m}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
    expect(metrics.map(({ m, text }) => gauge(text, 'groundcrew_cluster_leader', m)).sort()).toEqual([0, 0, 1]);
    expect(metrics.reduce((sum, { m, text }) => sum + gauge(text, 'groundcrew_cluster_owned_nodes', m), 0)).toBe(NODES.length);
    for (const { m, text } of metrics) expect(gauge(text, 'groundcrew_cluster_lease_age_seconds', m)).toBeLessThan(TTL_MS / 2000);

    const owners = await ha.owners();
    const windowsOwners = new Set(WINDOWS.map((w) => owners[w]));
    // Rendezvous hashing of these names is fixed: this holds on every run, or on none.
    expect(windowsOwners.size, `Windows nodes all on one member: ${JSON.stringify(owners)}`).toBeGreaterThanOrEqual(2);

    for (const w of WINDOWS) {
      await ha.lab.fault(w, { failVersions: ['5.1.0'] });
      ha.setVersion(w, '5.1.0');
    }
    const sha = ha.push('every Windows node to a vRouter build that fails');
    let nodes = new Map<string, NodeStatus>();
    await waitUntil(
      () =>
        `one failure and two held, or more failures:\n${WINDOWS.map((w) => `${w} ${nodes.get(w)?.state} ${nodes.get(w)?.waiting ?? ''}`).join('\n')}\n${ha.logTails()}`,
      async () => {
        nodes = await ha.nodesByOwner();
        const failed = WINDOWS.filter((w) => nodes.get(w)?.state === 'stalled');
        const halted = WINDOWS.filter((w) => nodes.get(w)?.waiting?.includes('halted'));
        return (failed.length === 1 && halted.length === 2) || failed.length > 1;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    // Give the halted nodes' members time to (wrongly) move on: they must not.
    await sleep(3 * TTL_MS);
    nodes = await ha.nodesByOwner();
    const failed = WINDOWS.filter((w) => nodes.get(w)?.state === 'stalled');
    expect(failed, WINDOWS.map((w) => `${w}: ${nodes.get(w)?.state} ${nodes.get(w)?.lastError?.message ?? ''}`).join('\n')).toHaveLength(1);
    for (const w of WINDOWS.filter((x) => !failed.includes(x))) {
      expect(nodes.get(w)?.waiting).toMatch(new RegExp(`rollout of ${sha.slice(0, 12)} halted: ${failed[0]} failed on it`));
      expect(msi(w), `${w} was sent the failing build`).toEqual([]);
    }
    expect(msi(failed[0] as string)).toContain('msi-failed vRouter 5.1.0');
    console.log(
      `failure budget: ${failed[0]} failed (owned by ${owners[failed[0] as string]}); halted on ${[...windowsOwners].join(', ')}`,
    );
  });
});
