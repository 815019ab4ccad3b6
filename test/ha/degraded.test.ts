// Cluster mode, issue 19: etcd degraded. One of three etcd members killed: the cluster goes on (a new commit
// converges, no lease lost). Two killed (no quorum): every daemon stops changing nodes (no command reaches
// any host), keeps serving status, and /readyz says why. Both back: convergence resumes.

import { describe, expect, it } from 'vitest';
import { NODES, sleep } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

const MEMBERS = ['m1', 'm2', 'm3'];
const TTL_MS = 3000;

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

    await ha.etcd.kill('e2');
    let fencedAt = 0;
    for (const deadline = Date.now() + 4 * TTL_MS; !fencedAt; await sleep(100)) {
      const answers = await Promise.all(urls().map(readyz));
      if (answers.every((a) => a.status === 503 && /etcd/.test(a.reason ?? ''))) fencedAt = Date.now();
      else if (Date.now() > deadline) throw new Error(`not all fenced: ${JSON.stringify(answers)}`);
    }
    // A commit that asks for work arrives meanwhile: nothing is sent to any node while there is no quorum.
    ha.setVersion('win-compute-1', '5.0.2');
    const sha = ha.push('win-compute-1 to 5.0.2, etcd without quorum');
    await sleep(3 * TTL_MS);
    for (const url of urls()) {
      const res = await fetch(`${url}/api/nodes`, { signal: AbortSignal.timeout(2000) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as unknown[]).length).toBe(NODES.length);
    }
    const restoredAt = Date.now();
    const during = (await Promise.all(NODES.map((n) => ha.lab.calls(n)))).flat().filter((c) => c.at > fencedAt && c.at < restoredAt);
    expect(during).toEqual([]);

    ha.etcd.startMember('e1');
    ha.etcd.startMember('e2');
    await ha.etcd.waitHealthy(3);
    await ha.converged(sha, 120_000);
    for (const url of urls()) expect(await readyz(url)).toEqual({ status: 200 });
    const resumed = (await ha.lab.calls('win-compute-1')).find((c) => c.at > restoredAt);
    expect(resumed, 'win-compute-1 got its new version after quorum returned').toBeDefined();
    console.log(`degraded: first command to win-compute-1 ${(resumed?.at ?? 0) - restoredAt} ms after etcd was restarted`);
  });
});
