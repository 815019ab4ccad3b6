// Cluster mode, issue 19: one revision in force. An elected leader follows the Git branch and writes the sha
// in force to etcd; every member applies only that sha. The leader is killed (SIGKILL) and a commit is pushed
// at once: no member applies it until another member is elected (the dead leader's lease expires first), and
// the new leader puts it in force; `groundcrew cluster status` names the leader.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait-until.js';
import { BIN } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

const MEMBERS = ['m1', 'm2', 'm3'];
// Long enough that members following Git themselves (1 s polls) would apply a commit well before the dead
// leader's lease expires (at least 2/3 TTL after the kill).
const TTL_MS = 6000;

describe('cluster mode: the leader and the revision in force', () => {
  const { ha } = haSuite({ members: MEMBERS, etcdPort: 23870, leaseTtl: `${TTL_MS / 1000}s` });

  const status = (member: string) =>
    JSON.parse(
      execFileSync(process.execPath, [BIN, 'cluster', 'status', '--json', '--config', join(ha.dir, `${member}.yaml`)], {
        encoding: 'utf8',
      }),
    ) as { leader?: string; revision?: { sha: string; leader: string }; members: { name: string; applied?: string }[] };

  it('kill -9 of the leader: another is elected, and only it puts the next commit in force', { timeout: 240_000 }, async () => {
    await ha.startMembers();
    const first = ha.pushInventory();
    await ha.converged(first);
    const leader = await ha.leader();
    if (!leader) throw new Error('no leader elected');
    expect(await ha.inForce()).toMatchObject({ sha: first, leader });
    const before = status(MEMBERS.find((m) => m !== leader) as string);
    expect(before.leader).toBe(leader);
    expect(before.members.map((m) => m.applied)).toEqual([first, first, first]);

    await ha.signal(leader, 'SIGKILL');
    const killedAt = Date.now();
    ha.setVersion('compute-l1', '5.0.2');
    const second = ha.push('compute-l1 to 5.0.2, the leader dead');
    // Sampled until the new commit is in force everywhere: what each member applies, then the leader etcd names
    // (read after: a member seen on the new commit applied it before this leader was read).
    let elected: { at: number; name: string } | undefined;
    let applied: { at: number; leader: string | undefined } | undefined;
    let seen = '';
    await waitUntil(
      () => `the new commit in force on both members (${seen})\n${ha.logTails()}`,
      async () => {
        const inForce = await ha.revisions();
        const now = await ha.leader();
        seen = `leader ${now}; in force ${inForce.join(', ')}`;
        if (!elected && now && now !== leader) elected = { at: Date.now(), name: now };
        if (!applied && inForce.includes(second)) applied = { at: Date.now(), leader: now };
        return inForce.length === 2 && inForce.every((r) => r === second);
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    if (!elected || !applied) throw new Error('no new leader seen');
    expect(applied.leader).toBe(elected.name);
    expect(applied.at - killedAt).toBeGreaterThanOrEqual((TTL_MS * 2) / 3);
    expect(await ha.inForce()).toMatchObject({ sha: second, leader: elected.name });
    await ha.converged(second, 90_000);
    const after = status(elected.name);
    expect(after.leader).toBe(elected.name);
    expect(after.revision?.sha).toBe(second);
    const live = ha.members.get(MEMBERS.find((m) => m !== leader && m !== elected?.name) as string);
    expect(live?.log).toContain('applying the revision in force');
    console.log(
      `leader: ${leader} killed; ${elected.name} elected after ${elected.at - killedAt} ms; the new commit applied after ${applied.at - killedAt} ms`,
    );
  });
});
