// Cluster mode, issue 19: a webhook reaches one member; it relays "fetch now" through etcd, and the other
// member, which would not look at Git for an hour, fetches the new commit too.

import { describe, expect, it } from 'vitest';
import { sleep } from './ha-cluster.js';
import { haSuite } from './ha-suite.js';

describe('cluster mode: webhook relay', () => {
  const { ha } = haSuite({ members: ['m1', 'm2'], etcdPort: 23810, pollInterval: '1h' });

  it('a webhook to one member makes every member fetch', { timeout: 180_000 }, async () => {
    await ha.startMembers();
    // Both have read the first commit (their look at start) before the next is pushed.
    for (const deadline = Date.now() + 20_000; ; await sleep(100)) {
      const inForce = await ha.revisions();
      if (inForce.length === 2 && inForce.every((r) => r !== undefined)) break;
      if (Date.now() > deadline) throw new Error(`in force: ${inForce.join(', ')}`);
    }
    const sha = ha.pushInventory();
    await sleep(1500);
    // Neither has looked at Git since it started.
    expect(await ha.revisions()).not.toContain(sha);
    const sent = Date.now();
    expect(await ha.hook('m1')).toBe(202);
    for (const deadline = Date.now() + 15_000; ; await sleep(100)) {
      const inForce = await ha.revisions();
      if (inForce.length === 2 && inForce.every((r) => r === sha)) break;
      if (Date.now() > deadline) throw new Error(`in force: ${inForce.join(', ')}\n${ha.logTails()}`);
    }
    console.log(`relay: both members on the new commit ${Date.now() - sent} ms after the webhook to m1`);
    expect(ha.members.get('m2')?.log).toContain('relayed by m1');
    await ha.converged(sha);
  });
});
