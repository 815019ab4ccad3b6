// The disruption budget's slots (issue 19) on a real etcd: nodes asking at once share one read of the slots
// instead of one each, only as many try to take a slot as were free, and the budget still holds: never more
// slots taken than the limit, every node gets one in turn.

import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClusterKeys, etcdClient } from '../../src/cluster/etcd.js';
import { RejectedValues } from '../../src/cluster/etcd-values.js';
import { GlobalBudget } from '../../src/cluster/global-budget.js';
import { LeaseRenewer } from '../../src/cluster/lease-renewer.js';
import { Membership } from '../../src/cluster/membership.js';
import { etcdSuite } from './etcd-suite.js';

const log = pino({ level: 'silent' });
const rejected = new RejectedValues(log);
const TTL_MS = 3000;

describe('global budget on a real etcd', () => {
  const suite = etcdSuite(23950);

  async function member(prefix: string, nodes: string[]) {
    const client = etcdClient({ endpoints: suite.etcd.endpoints }, 1000);
    const keys = new ClusterKeys(prefix);
    const renewer = new LeaseRenewer({ endpoints: suite.etcd.endpoints }, 300);
    const membership = new Membership({ client, keys, member: 'm1', ttlMs: TTL_MS, renewer, log, rejected });
    await membership.start();
    const budget = new GlobalBudget({ client, keys, membership, log, rejected, nodes: () => nodes, owned: () => true });
    const close = async () => {
      await membership.stop();
      client.close();
      renewer.close();
    };
    return { client, keys, membership, budget, close };
  }

  it('40 nodes waiting on 4 slots: fewer slot reads than nodes, never more than 4 taken, all served', { timeout: 60_000 }, async () => {
    const nodes = Array.from({ length: 40 }, (_, i) => `node-${i}`);
    const m = await member('/gb1/', nodes);
    let held = 0;
    let maxHeld = 0;
    let maxInEtcd = 0;
    let sampling = true;
    const sampler = (async () => {
      for (; sampling; await new Promise((r) => setTimeout(r, 20))) {
        maxInEtcd = Math.max(maxInEtcd, (await m.client.getAll().prefix(m.keys.slots()).keys()).length);
      }
    })();
    try {
      await Promise.all(
        nodes.map(async (node) => {
          await m.budget.acquire(node, 4);
          held++;
          maxHeld = Math.max(maxHeld, held);
          await new Promise((r) => setTimeout(r, 30));
          held--;
          m.budget.release(node);
        }),
      );
    } finally {
      sampling = false;
      await sampler;
      await m.close();
    }
    expect(maxHeld).toBeLessThanOrEqual(4);
    expect(maxInEtcd).toBeLessThanOrEqual(4);
    expect(maxHeld).toBeGreaterThanOrEqual(2);
    // One read each would be 40 for the first asks alone.
    expect(m.budget.reads).toBeLessThan(40);
  });

  it('1,000 nodes taken over at once: their slot adoptions share a few reads; the one still holding a slot inherits it', async () => {
    const nodes = Array.from({ length: 1000 }, (_, i) => `node-${i}`);
    const m = await member('/gb2/', nodes);
    try {
      // A slot its last owner (another member, gone) took for node-500.
      await m.client.put(m.keys.slot(0)).value(JSON.stringify({ node: 'node-500', member: 'm9', lease: '1' }));
      // And a value in the budget that is not a slot at all: counted as taken, nothing fails.
      await m.client.put(m.keys.slot(1)).value('{not a slot');
      await Promise.all(nodes.map((n) => m.budget.adopt(n)));
      expect(m.budget.holds('node-500')).toBe(true);
      expect(nodes.filter((n) => m.budget.holds(n))).toEqual(['node-500']);
      expect(m.budget.reads).toBeLessThanOrEqual(3);
      expect(JSON.parse((await m.client.get(m.keys.slot(0)).string()) ?? '{}')).toMatchObject({ node: 'node-500', member: 'm1' });
    } finally {
      await m.close();
    }
  });
});
