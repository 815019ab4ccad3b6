// Cluster mode, issue 19: etcd degraded. One of three etcd members killed: the cluster goes on (a new commit
// converges, no lease lost). Two killed (no quorum) while a node is being changed: every daemon stops changing
// nodes (no command reaches any host), keeps serving status, and /readyz says why. Both back: convergence resumes.

import { describe, expect, it } from 'vitest';
import type { NodeStatus } from '../../src/reconciler/status-store.js';
import { waitUntil } from '../support/wait-until.js';
import { NODES, sleep } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

const MEMBERS = ['m1', 'm2', 'm3'];
const TTL_MS = 3000;
const NODE = 'win-compute-1';
/** Every command to NODE takes this long: its upgrade is still under way when quorum goes. */
const SLOW_MS = 1000;

async function readyz(url: string): Promise<{ status: number; reason?: string }> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
  const body = (await res.json()) as { reason?: string };
  return { status: res.status, ...(body.reason ? { reason: body.reason } : {}) };
}

describe('cluster mode: etcd degraded', () => {
  const { ha } = haSuite({ members: MEMBERS, etcdPort: 23770, leaseTtl: `${TTL_MS / 1000}s` });

  const urls = () => MEMBERS.map((m) => ha.members.get(m)?.url ?? '');

  it('one etcd member lost: nothing changes; two: read-only with the reason in /readyz; back: resumes', { timeout: 300_000 }, async () => {
    await ha.startMembers();
    await ha.converged(ha.pushInventory());

    await ha.etcd.kill('e1');
    ha.setVersion('win-compute-3', '5.0.2');
    await ha.converged(ha.push('win-compute-3 to 5.0.2, one etcd member down'), 90_000);
    for (const url of urls()) expect(await readyz(url)).toEqual({ status: 200 });
    for (const m of ha.members.values()) expect(m.log).not.toContain('the lease expired at etcd');

    // Quorum goes while NODE is being upgraded: without the fence its owner would go on sending it commands.
    await ha.lab.fault(NODE, { slowMs: SLOW_MS });
    ha.setVersion(NODE, '5.0.2');
    const pushedAt = Date.now();
    const upgrade = ha.push(`${NODE} to 5.0.2`);
    await waitUntil(
      () => `a command to ${NODE} for ${upgrade}\n${ha.logTails()}`,
      async () => (await ha.lab.calls(NODE)).some((c) => c.at > pushedAt && c.caller !== '-'),
      { timeoutMs: 60_000, intervalMs: 20 },
    );
    await ha.etcd.kill('e2');
    let answers: { status: number; reason?: string }[] = [];
    await waitUntil(
      () => `every member fenced: ${JSON.stringify(answers)}`,
      async () => {
        answers = await Promise.all(urls().map(readyz));
        return answers.every((a) => a.status === 503 && /etcd/.test(a.reason ?? ''));
      },
      { timeoutMs: 4 * TTL_MS, intervalMs: 100 },
    );
    const fencedAt = Date.now();
    // A commit that asks for more work arrives meanwhile.
    ha.setVersion('win-compute-2', '5.0.2');
    const sha = ha.push('win-compute-2 to 5.0.2, etcd without quorum');
    await sleep(3 * TTL_MS);
    // Status stays readable at every member, and shows NODE's upgrade unfinished: the work was cut off mid-way.
    for (const url of urls()) {
      const res = await fetch(`${url}/api/nodes`, { signal: AbortSignal.timeout(2000) });
      expect(res.status).toBe(200);
      const nodes = (await res.json()) as NodeStatus[];
      expect(nodes.length).toBe(NODES.length);
      expect(nodes.find((n) => n.name === NODE)?.lastAppliedRevision).not.toBe(upgrade);
      expect((await fetch(url, { signal: AbortSignal.timeout(2000) })).status).toBe(200);
    }
    const restoredAt = Date.now();
    // A command written just before its member's fence closed may reach the host a moment after every /readyz
    // said 503: the fence keeps TTL/2 for the bytes' way (Membership.mayIssue). After that, nothing at all.
    const transitMs = TTL_MS / 2;
    const during = (await Promise.all(NODES.map((n) => ha.lab.calls(n))))
      .flat()
      .filter((c) => c.at > fencedAt + transitMs && c.at < restoredAt);
    expect(during).toEqual([]);

    await ha.lab.fault(NODE, { slowMs: 0 });
    ha.etcd.startMember('e1');
    ha.etcd.startMember('e2');
    await ha.etcd.waitHealthy(3);
    await ha.converged(sha, 120_000);
    for (const url of urls()) expect(await readyz(url)).toEqual({ status: 200 });
    const resumed = (await ha.lab.calls(NODE)).find((c) => c.at > restoredAt);
    expect(resumed, `${NODE} got the rest of its upgrade after quorum returned`).toBeDefined();
    console.log(
      `degraded: fenced ${fencedAt - pushedAt} ms after the push; first command to ${NODE} ${(resumed?.at ?? 0) - restoredAt} ms after etcd was restarted`,
    );
  });
});
