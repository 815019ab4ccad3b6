// No rollback without a signature holds in cluster mode too (issue 30, items 2 and 4): with source.verify, the
// leader never puts a head that does not descend from the revision in force into etcd (it records it rejected, as
// a single process does); `groundcrew source allow-rewind SHA` on the leader lets that sha into etcd, and each
// member applies it only once it was allowed there too: an allowance is a member's own, never read from etcd.
// Two members (daemons in this process, shared simulated hosts) on a real etcd; commits signed with ssh-keygen.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKeys } from '../../src/cluster/etcd.js';
import { waitUntil } from '../support/wait-until.js';
import { etcdSuite } from './etcd-suite.js';
import { SimMembers } from './sim-members.js';

const PREFIX = '/gc-rewind/';
const keys = new ClusterKeys(PREFIX);
const NODES = ['compute-l1', 'compute-l2', 'ctrl1', 'win-compute-1', 'win-compute-2', 'win-compute-3'];

interface Revision {
  sha: string;
  accepted: boolean;
  errors?: string[];
  rewind?: { from: string; allowed: boolean };
}

describe('cluster mode, source.verify: no rollback without a signature', () => {
  const suite = etcdSuite(24050);
  let members: SimMembers;
  let probe: Etcd3;

  beforeAll(async () => {
    probe = new Etcd3({ hosts: suite.etcd.endpoints });
    const dir = join(suite.etcd.dir, '..');
    const key = join(dir, 'signer');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'signer', '-f', key]);
    const allowedSigners = join(dir, 'allowed_signers');
    writeFileSync(allowedSigners, `signer@example.org namespaces="git" ${readFileSync(`${key}.pub`, 'utf8').trim()}\n`);
    members = new SimMembers({
      endpoints: suite.etcd.endpoints,
      prefix: PREFIX,
      source: { verify: { ssh: { allowedSigners } } },
      signWith: ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${key}`],
    });
  }, 60_000);

  afterAll(async () => {
    await members?.stop();
    probe?.close();
  }, 60_000);

  const revisions = async (name: string) => JSON.parse((await members.get(name, '/api/revisions')).body) as Revision[];
  const inForce = async () => (JSON.parse((await probe.get(keys.inForce()).string()) ?? '{}') as { sha?: string }).sha;
  const leader = async () =>
    Object.values(await probe.getAll().prefix(keys.candidates()).sort('Create', 'Ascend').limit(1).strings())[0] as string;
  const allowRewind = async (name: string, sha: string) => {
    const member = members.members.get(name);
    if (!member) throw new Error(`no member ${name}`);
    const token = readFileSync(member.daemon.tokenFile, 'utf8').trim();
    const res = await fetch(`${member.daemon.url}/api/source/allow-rewind`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ sha }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };

  it('a force-push back to an older signed commit never reaches etcd; allowed on the leader it does, and each member applies it once allowed there', {
    timeout: 240_000,
  }, async () => {
    // The repo's first commit is not signed: the members start on a signed one.
    const older = members.commit('signed: the older commit');
    for (const name of ['m1', 'm2']) await members.start(name);
    await members.converged(older, NODES);
    const newest = members.commit('signed: the newest commit');
    await members.converged(newest, NODES);
    const lead = await leader();
    const follower = lead === 'm1' ? 'm2' : 'm1';

    members.git('push', '-q', '--force', 'origin', `${older}:refs/heads/main`);
    await waitUntil(
      `the leader ${lead} records ${older.slice(0, 12)} rejected`,
      async () => (await revisions(lead)).some((r) => r.sha === older && !r.accepted),
      { timeoutMs: 30_000 },
    );
    const refused = (await revisions(lead)).find((r) => r.sha === older && !r.accepted);
    expect(refused?.errors).toEqual([`not a descendant of ${newest}: a rollback needs a new signed commit (git revert)`]);
    expect(refused?.rewind).toEqual({ from: newest, allowed: false });
    expect(await inForce()).toBe(newest);
    for (const name of ['m1', 'm2']) expect((await members.accepted(name))[0], name).toBe(newest);

    // Allowed on the leader: in force, applied there; the follower refuses it and says so until allowed there too.
    await allowRewind(lead, older);
    await waitUntil(`${older.slice(0, 12)} in force`, async () => (await inForce()) === older, { timeoutMs: 30_000 });
    await waitUntil(`${lead} applies ${older.slice(0, 12)}`, async () => (await members.accepted(lead))[0] === older, {
      timeoutMs: 30_000,
    });
    await waitUntil(
      `${follower} refuses it, on /readyz`,
      async () => /does not descend from .*refused.*allow-rewind/.test((await members.get(follower, '/readyz')).body),
      { timeoutMs: 30_000 },
    );
    expect((await members.accepted(follower))[0]).toBe(newest);
    await allowRewind(follower, older);
    await members.converged(older, NODES);
    expect((await revisions(follower)).find((r) => r.sha === older && r.accepted)?.rewind).toEqual({ from: newest, allowed: true });
  });
});
