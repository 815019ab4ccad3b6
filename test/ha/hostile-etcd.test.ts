// etcd is a trust boundary (issue 30, item 4): whoever can write to etcd wrote what a member reads there. Two
// members (daemons in this process, simulated hosts, one real Git remote) on a real etcd, and each hostile value
// a probe planted, put the way the probe put it (a plain etcd client, no lease):
// 1. a node status of the wrong shape made `/` answer 500 on every member, even after the key was deleted;
// 2. statuses of nodes that do not exist were shown everywhere and never forgotten;
// 3. an owner key naming a member that does not exist, or a member key with no lease: the real owner let its
//    nodes go and no member took them back;
// 4. a 40-character git expression, or an older sha, as the revision in force: a member applied it.
// Every case here failed on the code before this test's commit (see the commit message).

import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKeys } from '../../src/cluster/etcd.js';
import { ownerOf } from '../../src/cluster/rendezvous.js';
import { waitUntil } from '../support/wait-until.js';
import { etcdSuite } from './etcd-suite.js';
import { SimMembers } from './sim-members.js';

const PREFIX = '/gc-hostile/';
const keys = new ClusterKeys(PREFIX);
const NODES = ['compute-l1', 'compute-l2', 'ctrl1', 'win-compute-1', 'win-compute-2', 'win-compute-3'];
const MEMBERS = ['m1', 'm2'];

/** A member's log lines whose message matches. */
const said = (members: SimMembers, name: string, msg: RegExp) =>
  (members.members.get(name)?.log ?? []).filter((l) => typeof l.msg === 'string' && msg.test(l.msg));

describe('etcd is a trust boundary: hostile values a probe planted', () => {
  const suite = etcdSuite(24010);
  let members: SimMembers;
  let probe: Etcd3;
  let head: string;
  let first: string;

  beforeAll(async () => {
    probe = new Etcd3({ hosts: suite.etcd.endpoints });
    members = new SimMembers({ endpoints: suite.etcd.endpoints, prefix: PREFIX });
    first = members.git('rev-parse', 'HEAD');
    for (const name of MEMBERS) await members.start(name);
    head = members.commit('a second commit: the one in force');
    await members.converged(head, NODES);
  }, 150_000);

  afterAll(async () => {
    await members?.stop();
    probe?.close();
  }, 60_000);

  /** The owner key of each node as etcd has it. */
  const owners = async () => {
    const all = await probe.getAll().prefix(keys.owners()).strings();
    return Object.fromEntries(Object.entries(all).map(([k, v]) => [k.slice(keys.owners().length), v]));
  };

  it('a status of the wrong shape is skipped, never served: `/` answers on every member, before and after the key is deleted', async () => {
    const before = await probe.getAll().prefix(keys.statuses()).strings();
    const wrong = (node: string) => JSON.stringify({ name: node, state: 'verified', roles: 7, conditions: 'none' });
    try {
      for (const node of NODES) await probe.put(keys.status(node)).value(wrong(node));
      // Each member reads another's nodes' statuses: seen once each member says it skipped them.
      await waitUntil('every member skips the planted statuses', async () => {
        for (const name of MEMBERS) {
          if ((await members.get(name, '/')).status !== 200) return true;
          if (said(members, name, /status value in etcd refused/).length === 0) return false;
        }
        return true;
      });
      for (const name of MEMBERS) {
        const page = await members.get(name, '/');
        expect(page.status, `${name}: ${page.body.slice(0, 200)}`).toBe(200);
        for (const n of await members.nodes(name)) expect(n.roles, `${name}: ${n.name}`).toBeInstanceOf(Array);
      }
      const metrics = await members.get('m1', '/metrics');
      expect(metrics.body).toMatch(/groundcrew_etcd_rejected_values_total\{[^}]*kind="status"[^}]*\} [1-9]/);
      // One line per key change: read again at every full read, not said again.
      expect(said(members, 'm1', /status value in etcd refused/).length).toBeLessThanOrEqual(NODES.length);
      for (const node of NODES) await probe.delete().key(keys.status(node));
      await waitUntil('the deleted statuses forgotten by the members that do not drive them', async () => {
        for (const name of MEMBERS) {
          const shown = (await members.nodes(name)).map((n) => n.name);
          if (NODES.some((node) => ownerOf(node, MEMBERS) !== name && shown.includes(node))) return false;
        }
        return true;
      });
      for (const name of MEMBERS) expect((await members.get(name, '/')).status).toBe(200);
    } finally {
      // The owners' own records back (an owner writes its node's status again only when it changes).
      for (const [key, value] of Object.entries(before)) await probe.put(key).value(value);
    }
    await members.converged(head, NODES);
  });

  it('statuses of nodes that do not exist are not shown, and a status deleted in etcd is forgotten', async () => {
    const ghost = (name: string) =>
      JSON.stringify({
        name,
        address: '192.0.2.66',
        os: 'linux',
        roles: ['vrouter'],
        state: 'stalled',
        phases: [],
        mode: 'autocorrect',
        desiredVersions: {},
        observedVersions: {},
        conditions: [],
        lastError: { code: 'GC_PROBE', message: 'planted' },
        rebootCount: 0,
        drift: false,
        since: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      });
    // With each ghost, a real node's status the member shows (one another member drives) with a marker: once the
    // marker is shown, the ghost (put in the same transaction) was read too.
    const real = await probe.getAll().prefix(keys.statuses()).strings();
    const marked = (name: string) => NODES.find((n) => ownerOf(n, MEMBERS) !== name) as string;
    const marker = (node: string) => ({ ...JSON.parse(real[keys.status(node)] as string), waiting: 'probe marker' });
    try {
      await probe.kv.txn({
        compare: [],
        success: [
          ...['ghost-1', 'ghost-2'].map((g) => ({ request_put: { key: Buffer.from(keys.status(g)), value: Buffer.from(ghost(g)) } })),
          ...MEMBERS.map((m) => marked(m)).map((n) => ({
            request_put: { key: Buffer.from(keys.status(n)), value: Buffer.from(JSON.stringify(marker(n))) },
          })),
        ],
      });
      await waitUntil('every member read the marker', async () => {
        for (const name of MEMBERS)
          if ((await members.nodes(name)).find((n) => n.name === marked(name))?.waiting !== 'probe marker') return false;
        return true;
      });
      for (const name of MEMBERS) expect((await members.nodes(name)).map((n) => n.name).sort()).toEqual([...NODES].sort());
      // A status deleted in etcd: forgotten where it was shown (the member that does not drive the node).
      const node = marked('m1');
      await probe.delete().key(keys.status(node));
      await waitUntil(`${node} forgotten by m1`, async () => !(await members.nodes('m1')).some((n) => n.name === node));
    } finally {
      await probe.delete().key(keys.status('ghost-1'));
      await probe.delete().key(keys.status('ghost-2'));
      for (const [key, value] of Object.entries(real)) await probe.put(key).value(value);
    }
  });

  it('an owner key naming a member that does not exist is released and the node owned again', async () => {
    const node = 'win-compute-3';
    await probe.put(keys.owner(node)).value(JSON.stringify({ member: 'ghost', lease: '12345' }));
    const owner = ownerOf(node, MEMBERS) as string;
    await waitUntil(`${node} owned again by ${owner}, under its lease`, async () => {
      const res = await probe.get(keys.owner(node)).exec();
      const kv = res.kvs[0];
      if (!kv) return false;
      const record = JSON.parse(kv.value.toString()) as { member: string; lease: string };
      return record.member === owner && kv.lease === record.lease;
    });
    await members.converged(head, NODES);
  });

  it('a member key with no lease is no member: every node stays owned by a live member', async () => {
    // A name rendezvous hashing gives a node to, among the members and it.
    const ghost = Array.from({ length: 100 }, (_, i) => `ghost-${i}`).find((g) =>
      NODES.some((n) => ownerOf(n, [...MEMBERS, g]) === g),
    ) as string;
    const taken = NODES.filter((n) => ownerOf(n, [...MEMBERS, ghost]) === ghost);
    await probe.put(keys.member(ghost)).value(JSON.stringify({ name: ghost, since: new Date().toISOString() }));
    try {
      await waitUntil('both members skipped the planted member key', () =>
        MEMBERS.every((m) => said(members, m, /member value in etcd refused/).length > 0),
      );
      // A pass of each member's ownership after the read (every TTL/3), with the node settled: still owned.
      const third = members.commit(`a commit after the planted member ${ghost}`);
      await members.converged(third, NODES);
      head = third;
      const now = await owners();
      for (const node of taken) expect(JSON.parse(now[node] as string).member).toBe(ownerOf(node, MEMBERS));
    } finally {
      await probe.delete().key(keys.member(ghost));
    }
  });

  /** How many revisions each member accepted so far. */
  const acceptedCounts = async () => Promise.all(MEMBERS.map(async (name) => (await members.accepted(name)).length));

  /**
   * Plants `value` as the revision in force every 300 ms (the leader writes its own record back at its next pass)
   * until `seen` holds, or until a member accepts another revision (which the test then shows).
   */
  async function plantRevision(value: string, seen: () => boolean): Promise<void> {
    const before = await acceptedCounts();
    await waitUntil(
      'the planted revision seen by a follower',
      async () => {
        await probe.put(keys.inForce()).value(value);
        await new Promise((r) => setTimeout(r, 300));
        return seen() || (await acceptedCounts()).some((n, i) => n !== before[i]);
      },
      { timeoutMs: 30_000 },
    );
    expect(await acceptedCounts(), 'revisions accepted by each member').toEqual(before);
  }

  it('a 40-character git expression as the revision in force is no revision: no member resolves or applies it', async () => {
    const expression = 'refs/remotes/origin/main~000000000000001';
    expect(expression).toHaveLength(40);
    const leader = (await probe.getAll().prefix(keys.candidates()).sort('Create', 'Ascend').limit(1).strings()) as Record<string, string>;
    const by = Object.values(leader)[0] as string;
    const follower = MEMBERS.find((m) => m !== by) as string;
    // It names the commit before the head (`first`), had git resolved it.
    await plantRevision(JSON.stringify({ sha: expression, leader: by, at: new Date().toISOString() }), () =>
      said(members, follower, /revision value in etcd refused/).some((l) => l.kind === 'revision'),
    );
    for (const name of MEMBERS) expect((await members.accepted(name))[0], name).toBe(head);
    await waitUntil(
      'the leader wrote the head back',
      async () => JSON.parse((await probe.get(keys.inForce()).string()) ?? '{}').sha === head,
    );
  });

  it('an older sha as the revision in force, even named as the leader under its lease, is refused: no member applies it', async () => {
    const candidates = await probe.getAll().prefix(keys.candidates()).sort('Create', 'Ascend').limit(1).exec();
    const kv = candidates.kvs[0];
    if (!kv) throw new Error('no leader');
    const by = kv.value.toString();
    const follower = MEMBERS.find((m) => m !== by) as string;
    const planted = JSON.stringify({ sha: first, leader: by, lease: kv.lease, at: new Date().toISOString() });
    await plantRevision(planted, () => said(members, follower, /does not descend from/).length > 0);
    for (const name of MEMBERS) expect((await members.accepted(name))[0], name).toBe(head);
    expect(said(members, follower, /does not descend from/)[0]?.msg).toMatch(/allow-rewind/);
    await waitUntil(
      'the leader wrote the head back',
      async () => JSON.parse((await probe.get(keys.inForce()).string()) ?? '{}').sha === head,
    );
    await waitUntil(`${follower} ready again`, async () => (await members.get(follower, '/readyz')).status === 200);
  });
});
