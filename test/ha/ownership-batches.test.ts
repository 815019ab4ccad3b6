// Issue 19, ownership at scale on a real etcd: owner keys are taken in batches (one transaction per batch of
// absent keys, one per key only for a batch that lost a race), each batch is prepared and handed to the
// reconciler as soon as it is taken, and newly owned nodes start at a bounded rate. The Ownership class
// alone, with its Membership and LeaseRenewer, against a one-member etcd; no daemon.

import type { Etcd3 } from 'etcd3';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClusterKeys, etcdClient } from '../../src/cluster/etcd.js';
import { RejectedValues } from '../../src/cluster/etcd-values.js';
import { LeaseRenewer } from '../../src/cluster/lease-renewer.js';
import { Membership } from '../../src/cluster/membership.js';
import { Ownership } from '../../src/cluster/ownership.js';
import { ownerOf } from '../../src/cluster/rendezvous.js';
import { waitUntil } from '../support/wait-until.js';
import { etcdSuite } from './etcd-suite.js';

const TTL_MS = 10_000;
/** 350 nodes rendezvous hashing gives m1 rather than m9 (m9 is a live member here: its keys count only then). */
const NODES = Array.from({ length: 1000 }, (_, i) => `node-${i}`)
  .filter((n) => ownerOf(n, ['m1', 'm9']) === 'm1')
  .slice(0, 350);
const [, , , THIRD = '', ...rest] = NODES;
const MID = rest[146] as string;
const LAST = NODES[349] as string;

/** Another member, live: its registration and its owner keys under a lease of its own (kept alive until revoked). */
async function otherMember(client: Etcd3, keys: ClusterKeys, name: string) {
  const lease = client.lease(60);
  const id = await lease.grant();
  await lease.put(keys.member(name)).value(JSON.stringify({ name, since: new Date().toISOString() }));
  return { lease, value: JSON.stringify({ member: name, lease: id }) };
}

describe('cluster mode: owner keys taken in batches', () => {
  const suite = etcdSuite(24070);

  it('takes absent keys by batches, leaves those another member holds, starts nodes at the rate', { timeout: 60_000 }, async () => {
    const log = pino({ level: 'silent' });
    const rejected = new RejectedValues(log);
    const settings = { endpoints: suite.etcd.endpoints };
    const client = etcdClient(settings, 3000);
    const keys = new ClusterKeys('/gc-own/');
    const renewer = new LeaseRenewer(settings, 1000);
    const membership = new Membership({ client, keys, member: 'm1', ttlMs: TTL_MS, renewer, log, rejected });
    // Another member's keys: one there before the pass reads the owners, one created during the pass (after
    // the first batch is prepared), so the second batch's all-absent transaction fails and falls back.
    const m9 = await otherMember(client, keys, 'm9');
    const foreign = m9.value;
    await m9.lease.put(keys.owner(THIRD)).value(foreign);
    const events: string[] = [];
    const prepared: string[][] = [];
    const started: string[] = [];
    let done: () => void = () => undefined;
    const all = new Promise<void>((resolve) => {
      done = resolve;
    });
    const ownership = new Ownership({
      client,
      keys,
      membership,
      log,
      rejected,
      batch: 100,
      // The last node in order, to take first (a failover's node left mid-work): taken and started first.
      takeFirst: (node) => node === LAST,
      startRate: { perSecond: 400, burst: 40 },
      prepare: async (nodes) => {
        prepared.push(nodes);
        events.push(`prepare ${nodes.length}`);
        if (prepared.length === 1) await m9.lease.put(keys.owner(MID)).value(foreign);
      },
      onChange: (nodes) => {
        expect(nodes, 'a change names its nodes').toBeDefined();
        events.push(`start ${nodes?.length}`);
        started.push(...(nodes ?? []));
        if (started.length === NODES.length - 2) done();
      },
    });
    try {
      await membership.start();
      ownership.setNodes(NODES);
      await all;
      // Every batch within the size, each node prepared once, the two foreign ones never.
      for (const batch of prepared) expect(batch.length).toBeLessThanOrEqual(100);
      expect(prepared[0]?.[0]).toBe(LAST);
      expect(started[0]).toBe(LAST);
      const preparedAll = prepared.flat();
      expect(new Set(preparedAll).size).toBe(preparedAll.length);
      expect(preparedAll.sort()).toEqual(NODES.filter((n) => n !== THIRD && n !== MID).sort());
      // Handed over batch by batch: nodes started before the last batch was prepared, never more than the burst at once.
      expect(events.indexOf('start 40')).toBeLessThan(events.lastIndexOf(`prepare ${prepared.at(-1)?.length}`));
      for (const e of events.filter((x) => x.startsWith('start '))) expect(Number(e.split(' ')[1])).toBeLessThanOrEqual(40);
      for (const node of started) expect(ownership.drives(node)).toBe('yes');
      expect(ownership.drives(THIRD)).toBe('no');
      expect(ownership.drives(MID)).toBe('no');
      // etcd agrees: this lease holds every key but the two, which are still the other member's.
      const owners = await client.getAll().prefix(keys.owners()).strings();
      const mine = JSON.stringify({ member: 'm1', lease: membership.leaseId });
      expect(Object.values(owners).filter((v) => v === mine)).toHaveLength(NODES.length - 2);
      expect(owners[keys.owner(THIRD)]).toBe(foreign);
      expect(owners[keys.owner(MID)]).toBe(foreign);
    } finally {
      await m9.lease.revoke();
      ownership.stop();
      await membership.stop();
      renewer.close();
      client.close();
    }
  });

  // Issue 19's 49.2 s failover: the new owner had just taken back 1,000s of verified nodes (a rebalance) and was
  // still starting them at its start rate when its peer died; the node the peer left mid-work went to the end.
  it('a node a dead member left mid-work starts ahead of the nodes already waiting at the start pacer', { timeout: 60_000 }, async () => {
    const log = pino({ level: 'silent' });
    const rejected = new RejectedValues(log);
    const settings = { endpoints: suite.etcd.endpoints };
    const client = etcdClient(settings, 3000);
    const keys = new ClusterKeys('/gc-own-first/');
    const renewer = new LeaseRenewer(settings, 1000);
    const membership = new Membership({ client, keys, member: 'm1', ttlMs: TTL_MS, renewer, log, rejected });
    // The dead member's keys, under a lease of its own; revoked below, as etcd ends it at its TTL.
    const dead = client.lease(60, { autoKeepAlive: false });
    const deadValue = JSON.stringify({ member: 'm9', lease: await dead.grant() });
    await dead.put(keys.member('m9')).value(JSON.stringify({ name: 'm9', since: new Date().toISOString() }));
    const orphans = Array.from({ length: 20 }, (_, i) => `orphan-${i}`);
    for (const node of orphans) await dead.put(keys.owner(node)).value(deadValue);
    const started: string[] = [];
    let waitingWhenStarted = -1;
    const ownership = new Ownership({
      client,
      keys,
      membership,
      log,
      rejected,
      // orphan-7 was mid-reboot at the dead member (its status short of verified); the rest are verified.
      takeFirst: (node) => node === 'orphan-7',
      // Slow enough that the own nodes are still waiting long after the orphans are taken.
      startRate: { perSecond: 2, burst: 2 },
      onChange: (nodes) => {
        started.push(...(nodes ?? []));
        if (nodes?.includes('orphan-7')) waitingWhenStarted = ownership.waiting;
      },
    });
    const until = (test: () => boolean, what: string) =>
      waitUntil(() => `${what} (started: ${started.length})`, test, { timeoutMs: 30_000 });
    try {
      await membership.start();
      ownership.setNodes([...NODES, ...orphans]);
      // Every own node taken (two started at once, the rest waiting for the rate); the orphans are not free yet.
      await until(() => started.length + ownership.waiting === NODES.length, 'every own node taken');
      expect(started.some((n) => n.startsWith('orphan-'))).toBe(false);
      await dead.revoke();
      ownership.kick();
      await until(() => started.includes('orphan-7'), 'orphan-7 started');
      // Ahead of the 340-odd own nodes still waiting when it was taken, and of the other (verified) orphans.
      expect(waitingWhenStarted).toBeGreaterThan(300);
      expect(started.filter((n) => n.startsWith('orphan-'))).toEqual(['orphan-7']);
      expect(ownership.drives('orphan-7')).toBe('yes');
      // It goes first at the reconciler's run window too, until it settles here; a node started in its turn does not.
      expect(ownership.startsFirst('orphan-7')).toBe(true);
      expect(ownership.startsFirst(started[0] as string)).toBe(false);
      ownership.settled('orphan-7');
      expect(ownership.startsFirst('orphan-7')).toBe(false);
    } finally {
      ownership.stop();
      await membership.stop();
      renewer.close();
      client.close();
    }
  });
});
