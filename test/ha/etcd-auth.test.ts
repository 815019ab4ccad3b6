// etcd locked down as docs/operations.md (High availability) says: auth enabled, groundcrew's user in a role that
// may read and write the cluster's prefix and nothing else. On a real etcd: a member with that user works (its
// nodes converge); the role really is limited; a wrong password ends `groundcrew run` in one clear line; neither
// password is ever in a log.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../support/daemon-process.js';
import { etcdSuite } from './etcd-suite.js';
import { SimMembers } from './sim-members.js';

const PREFIX = '/gc-auth/';
const ROOT_PASSWORD = 'root-Secret-7f3a';
const PASSWORD = 'gc-Secret-91c2e';
const WRONG = 'not-the-Password-5d1';
const NODES = ['compute-l1', 'compute-l2', 'ctrl1', 'win-compute-1', 'win-compute-2', 'win-compute-3'];

describe('etcd with auth, groundcrew in a role limited to its prefix', () => {
  const suite = etcdSuite(24030);
  let members: SimMembers;
  const root = ['--user', `root:${ROOT_PASSWORD}`];

  beforeAll(async () => {
    const { etcd } = suite;
    await etcd.ctl(['user', 'add', 'root', '--new-user-password', ROOT_PASSWORD]);
    await etcd.ctl(['role', 'add', 'groundcrew']);
    await etcd.ctl(['role', 'grant-permission', 'groundcrew', '--prefix=true', 'readwrite', PREFIX]);
    await etcd.ctl(['user', 'add', 'groundcrew', '--new-user-password', PASSWORD]);
    await etcd.ctl(['user', 'grant-role', 'groundcrew', 'groundcrew']);
    await etcd.ctl(['auth', 'enable']);
    await etcd.ctl([...root, 'put', '/elsewhere/secret', 'not groundcrew\u2019s']);
    members = new SimMembers({ endpoints: etcd.endpoints, prefix: PREFIX });
  }, 60_000);

  afterAll(async () => {
    await members?.stop();
  }, 60_000);

  const passwordFile = (name: string, password: string) => {
    const file = join(members.dir, name);
    writeFileSync(file, `${password}\n`, { mode: 0o600 });
    return file;
  };

  it('the role is limited: the user reads its prefix, and nothing else', async () => {
    const as = ['--user', `groundcrew:${PASSWORD}`];
    await suite.etcd.ctl([...as, 'put', `${PREFIX}probe`, 'x']);
    await expect(suite.etcd.ctl([...as, 'get', '/elsewhere/secret'])).rejects.toThrow(/permission denied/);
    await expect(suite.etcd.ctl(['get', `${PREFIX}probe`])).rejects.toThrow(/user name is empty|authentication|permission/i);
    await suite.etcd.ctl([...as, 'del', `${PREFIX}probe`]);
  });

  it('a member with that user works: it joins, leads and converges every node; the password is never logged', {
    timeout: 150_000,
  }, async () => {
    members.options.etcd = { auth: { username: 'groundcrew', passwordFile: passwordFile('etcd-password', PASSWORD) } };
    const m1 = await members.start('m1');
    await members.converged(members.git('rev-parse', 'HEAD'), NODES);
    const log = JSON.stringify(m1.log);
    expect(log).toContain('cluster: joined with a new lease');
    expect(log).toContain('cluster: leader put a revision in force');
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(ROOT_PASSWORD);
  });

  it('a wrong password: `groundcrew run` ends at start with one line that names the user, not the password', {
    timeout: 60_000,
  }, async () => {
    const config = join(members.dir, 'wrong.yaml');
    writeFileSync(
      config,
      `source: { url: ${members.origin}, branch: main, pollInterval: 1h }
stateDir: ${join(members.dir, 'state-wrong')}
listen: 127.0.0.1:0
transport: sim
cluster:
  member: m9
  prefix: ${PREFIX}
  etcd:
    endpoints: [${suite.etcd.endpoints.join(', ')}]
    auth: { username: groundcrew, passwordFile: ${passwordFile('wrong-password', WRONG)} }
`,
    );
    const child = spawn(process.execPath, [BIN, 'run', '--config', config], { env: { ...process.env, XDG_RUNTIME_DIR: members.dir } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const lines = err.trim().split('\n');
    expect(lines, err).toHaveLength(1);
    expect(lines[0]).toMatch(/^groundcrew run: cluster: etcd user groundcrew was refused \(user or password\): .*\(GC_CLUSTER_AUTH\)$/);
    expect(out + err).not.toContain(WRONG);
    expect(out + err).not.toContain(PASSWORD);
  });
});
