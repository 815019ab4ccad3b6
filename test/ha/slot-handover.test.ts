// Cluster mode, issue 19: maxUnavailable 1 holds across a member's death. The member driving the first node to
// reboot is killed (SIGKILL) while that node is down; the node stays down well past the member's lease (8 s
// reboots, TTL 3 s). Its disruption slot belongs to the node, not to the dead member's lease: the node's next
// owner inherits it, and no other node goes down until the first is back (a slot under the dead member's lease
// went with it, and another node rebooted at once: two down).

import { describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait-until.js';
import { sampleDisruption } from './disruption.js';
import { haSuite } from './ha-suite.js';

const MEMBERS = ['m1', 'm2', 'm3'];
const TTL_MS = 3000;

describe('cluster mode: a disruption slot outlives the member that took it', () => {
  const { ha } = haSuite({ members: MEMBERS, etcdPort: 23850, leaseTtl: `${TTL_MS / 1000}s`, rebootMs: 8000 });

  it('kill -9 of the owner of a rebooting node: no second node goes down before the first is back', { timeout: 240_000 }, async () => {
    await ha.startMembers();
    // Sampled throughout: which hosts are down (as the lab sees them), and how many budget slots etcd holds.
    const disruption = sampleDisruption(ha);
    try {
      const sha = ha.pushInventory();
      const first = await waitUntil(
        () => `a host rebooting\n${ha.logTails()}`,
        () => ha.lab.hosts.find((h) => h.rebooting)?.name,
        {
          timeoutMs: 90_000,
          intervalMs: 20,
        },
      );
      const owner = (await ha.owners())[first];
      if (!owner) throw new Error(`${first} has no owner`);
      await ha.signal(owner, 'SIGKILL');
      const killedAt = Date.now();
      await ha.converged(sha, 150_000);
      const { maxDown, maxSlots, overlaps } = await disruption.stop();
      const host = ha.lab.host(first);
      expect(host.reboots).toBe(1);
      expect(overlaps, `two hosts down at once; ${owner} was killed at ${killedAt}`).toEqual([]);
      expect(maxDown).toBe(1);
      expect(maxSlots).toBe(1);
      const rebooted = ha.lab.hosts.filter((h) => h.reboots > 0).map((h) => h.name);
      // The test means something only if another node waited for the slot meanwhile.
      expect(rebooted.length).toBeGreaterThanOrEqual(2);
      const heirs = [...ha.members.values()].filter((m) => m.log.includes('still holds a disruption slot: inherited')).map((m) => m.name);
      expect(heirs.length).toBe(1);
      console.log(
        `slot hand-over: ${owner} killed while ${first} rebooted; ${heirs[0]} inherited its slot; rebooted one at a time: ${rebooted.join(', ')}`,
      );
    } finally {
      await disruption.stop();
    }
  });
});
