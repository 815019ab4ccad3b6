// Cluster mode, issue 19: a webhook reaches one member; it relays "fetch now" through etcd, and the other
// member, which would not look at Git for an hour, fetches the new commit too.

import { describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait-until.js';
import { sleep } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

describe('cluster mode: webhook relay', () => {
  const { ha } = haSuite({ members: ['m1', 'm2'], etcdPort: 23810, pollInterval: '1h' });

  it('a webhook to one member makes every member fetch', { timeout: 180_000 }, async () => {
    await ha.startMembers();
    // Both have read the first commit themselves before the next is pushed. A revision in force is not that: a member
    // serves the leader's while its own first look goes on past its wait (30 s), or is retried after a failure, and that
    // look, ending after the push, read the new commit (seen under two CPU hogs). So: each member's log has a head its
    // source read; after that it looks again only at its poll (1 h) or when asked.
    let inForce: (string | undefined)[] = [];
    await waitUntil(
      () => `a revision in force on both members (${inForce.join(', ')}) and a head each one's source read`,
      async () => {
        inForce = await ha.revisions();
        return (
          inForce.length === 2 && inForce.every((r) => r !== undefined) && ['m1', 'm2'].every((m) => readAHead(ha.members.get(m)?.log))
        );
      },
      { intervalMs: 100, timeoutMs: 60_000 },
    );
    const sha = ha.pushInventory();
    await sleep(1500);
    // Neither has looked at Git since it started.
    expect(await ha.revisions()).not.toContain(sha);
    const sent = Date.now();
    expect(await ha.hook('m1')).toBe(202);
    await waitUntil(
      () => `${sha.slice(0, 12)} in force on both members: ${inForce.join(', ')}\n${ha.logTails()}`,
      async () => {
        inForce = await ha.revisions();
        return inForce.length === 2 && inForce.every((r) => r === sha);
      },
      { intervalMs: 100 },
    );
    console.log(`relay: both members on the new commit ${Date.now() - sent} ms after the webhook to m1`);
    expect(ha.members.get('m2')?.log).toContain('relayed by m1');
    await ha.converged(sha);
  });
});

/** The daemon's JSON log has a head its source read ('new head': source/git-source.ts). */
function readAHead(log = ''): boolean {
  return log.split('\n').some((line) => {
    try {
      const entry = JSON.parse(line) as { msg?: string };
      return entry.msg === 'new head';
    } catch {
      return false;
    }
  });
}
