// One revision in force: only the leader writes the sha its source found; every member applies only the sha in
// etcd, read from its own clone; a member whose clone lacks it fetches and says it waits.

import { EventEmitter } from 'node:events';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClusterKeys } from '../../../src/cluster/etcd.js';
import type { LeaderElection } from '../../../src/cluster/leader-election.js';
import type { Membership } from '../../../src/cluster/membership.js';
import { type Commit, RevisionInForce } from '../../../src/cluster/revision-in-force.js';
import { fakeEtcd } from '../../support/fake-etcd.js';

function member(name: string, kv: Map<string, string>, leads: boolean, clone: Map<string, Commit>) {
  const membership = Object.assign(new EventEmitter(), { name, leaseId: '1', mayIssue: () => true, options: { ttlMs: 3000 } });
  const election = { isLeader: () => leads, key: leads ? `/p/election/leader/${name}` : undefined, leader: 'm1' };
  if (leads) kv.set(`/p/election/leader/${name}`, name);
  const applied: string[] = [];
  const fetched: string[] = [];
  const rif = new RevisionInForce<Commit>({
    client: fakeEtcd(kv).client,
    keys: new ClusterKeys('/p/'),
    membership: membership as unknown as Membership,
    election: election as unknown as LeaderElection,
    log: pino({ level: 'silent' }),
    lookup: async (sha) => clone.get(sha),
    fetch: async (reason) => void fetched.push(reason),
    deliver: async (revision) => void applied.push(revision.sha),
  });
  return { rif, applied, fetched };
}

/** Runs one pass of each, in turn. */
async function pass(...members: RevisionInForce<Commit>[]): Promise<void> {
  for (const m of members) await m.kick();
}

describe('revision in force', () => {
  it("the leader's head is put in force; a follower applies it and not its own newer head", async () => {
    const kv = new Map<string, string>();
    const leader = member('m1', kv, true, new Map());
    const follower = member('m2', kv, false, new Map([['a', { sha: 'a' }]]));
    follower.rif.offer({ sha: 'b' });
    await pass(follower.rif);
    expect(follower.applied).toEqual([]);
    expect(follower.rif.waiting).toMatch(/no revision in force yet/);
    leader.rif.offer({ sha: 'a' });
    await pass(leader.rif, follower.rif);
    expect(JSON.parse(kv.get('/p/revision') ?? '{}')).toMatchObject({ sha: 'a', leader: 'm1' });
    expect(leader.applied).toEqual(['a']);
    expect(follower.applied).toEqual(['a']);
    expect(follower.rif.waiting).toBeUndefined();
    expect(JSON.parse(kv.get('/p/applied/m2') ?? '{}')).toEqual({ sha: 'a' });
  });

  it('a member whose clone lacks the sha in force fetches and waits, and says so', async () => {
    const kv = new Map<string, string>([['/p/revision', JSON.stringify({ sha: 'c', leader: 'm1', at: 'now' })]]);
    const clone = new Map<string, Commit>();
    const follower = member('m3', kv, false, clone);
    await pass(follower.rif);
    expect(follower.applied).toEqual([]);
    expect(follower.fetched).toEqual(['revision in force c']);
    expect(follower.rif.waiting).toMatch(/revision in force c \(put by leader m1\) is not in this member's clone yet/);
    expect(JSON.parse(kv.get('/p/applied/m3') ?? '{}').waiting).toMatch(/not in this member's clone/);
    clone.set('c', { sha: 'c' });
    await pass(follower.rif);
    expect(follower.applied).toEqual(['c']);
  });
});
