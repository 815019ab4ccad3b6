// source.sshKeyFile and source.knownHostsFile against a real Git server over SSH on loopback (sshd with
// `git-shell`, one authorized deploy key, keys made by ssh-keygen). The key and known_hosts paths hold a
// space, quotes, `$(…)` and `%`: they stay paths, never shell syntax or ssh tokens. An unknown host key is
// refused (nothing is accepted into known_hosts), a key the server does not know is refused, and both leave
// the source stalled with git's reason, never a crash.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SshSettings, sshCommand } from '../../src/source/git-environment.js';
import { gitIn, pushComment } from '../support/git.js';
import { type GitSshd, newKey, startGitSshd } from '../support/git-sshd.js';
import { waitUntil } from '../support/wait-until.js';
import { watchedSource } from '../support/watched-source.js';

let dir: string;
let keys: string;
let work: string;
let served: string;
let sshd: GitSshd;
/** The SSH agent of the agent test, ended in afterAll too (a test that times out never reaches its finally). */
let agent: ChildProcess | undefined;
/** Made by `$(touch gc-pwned)` if a shell ever read a path as syntax: in git's working directory, wherever that was. */
const pwned = () =>
  existsSync(join(process.cwd(), 'gc-pwned')) || readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('gc-pwned'));

function source(name: string, ssh: SshSettings, environment: NodeJS.ProcessEnv = {}) {
  return watchedSource({
    url: sshd.url(served),
    checkout: join(dir, name, 'checkout'),
    ssh,
    // A home of its own: nothing of the test user's ~/.gitconfig; ssh reads known_hosts only where it is told.
    environment: { PATH: process.env.PATH, HOME: join(dir, 'home'), ...environment },
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-deploy-key-'));
  mkdirSync(join(dir, 'home'));
  keys = join(dir, `keys it's "quoted" $(touch gc-pwned) 100%`);
  mkdirSync(keys);
  const deployKey = newKey(join(keys, 'deploy key'), 'groundcrew deploy key');
  newKey(join(keys, 'stranger key'), 'a key the server does not know');
  served = join(dir, 'served', 'inventory.git');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', served]);
  // Read-only for whoever comes over SSH (the test pushes its commits by path), as a Git host serves a deploy key
  // without write access.
  const refuse = '#!/bin/sh\nif [ -n "$SSH_CONNECTION" ]; then echo "read-only deploy key" >&2; exit 1; fi\n';
  writeFileSync(join(served, 'hooks', 'pre-receive'), refuse, { mode: 0o755 });
  work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--initial-branch=main', work]);
  gitIn(work)('remote', 'add', 'origin', served);
  pushComment(work, 'first');
  sshd = await startGitSshd(join(dir, 'sshd'), deployKey);
  writeFileSync(join(keys, 'known hosts'), `${sshd.knownHostsLine}\n`);
  writeFileSync(join(keys, 'empty known hosts'), '');
});

afterAll(async () => {
  agent?.kill();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a Git source over SSH with a deploy key', { timeout: 120_000 }, () => {
  it('clones and fetches with the key, checking the host key against knownHostsFile', async () => {
    const { src, revisions } = source('good', { keyFile: join(keys, 'deploy key'), knownHostsFile: join(keys, 'known hosts') });
    const first = gitIn(work)('rev-parse', 'HEAD');
    await src.start();
    try {
      expect(src.stalled()).toBeUndefined();
      expect(revisions.map((r) => r.sha)).toEqual([first]);
      const second = pushComment(work, 'second');
      await src.trigger('poll');
      expect(revisions.map((r) => r.sha)).toEqual([first, second]);
      expect(sshd.log()).toMatch(/Accepted publickey for \S+ from 127\.0\.0\.1 .* ED25519/);
      expect(pwned()).toBe(false);
      // The key reads and cannot write: the daemon never needs more.
      const ssh = sshCommand({ keyFile: join(keys, 'deploy key'), knownHostsFile: join(keys, 'known hosts') });
      expect(() =>
        execFileSync('git', ['push', sshd.url(served), 'HEAD:refs/heads/other'], {
          cwd: work,
          env: { ...process.env, GIT_SSH_COMMAND: ssh },
          stdio: 'pipe',
        }),
      ).toThrow(/read-only deploy key/);
    } finally {
      await src.stop();
    }
  });

  it('refuses a server whose host key is not known, and accepts nothing into known_hosts', async () => {
    const knownHosts = join(keys, 'empty known hosts');
    const { src, revisions } = source('unknown-host', { keyFile: join(keys, 'deploy key'), knownHostsFile: knownHosts });
    await src.start();
    try {
      expect(revisions).toEqual([]);
      expect(src.stalled()).toMatch(/^cloning main of ssh:\/\/\*\*\*@127\.0\.0\.1:\d+\/.* failed: .*Host key verification failed/);
      expect(readFileSync(knownHosts, 'utf8')).toBe('');
    } finally {
      await src.stop();
    }
  });

  it('is refused with a key the server does not know (only that key is offered)', async () => {
    const { src, revisions } = source('stranger', { keyFile: join(keys, 'stranger key'), knownHostsFile: join(keys, 'known hosts') });
    await src.start();
    try {
      expect(revisions).toEqual([]);
      expect(src.stalled()).toMatch(/Permission denied \(publickey\)/);
      expect(pwned()).toBe(false);
    } finally {
      await src.stop();
    }
  });

  it("uses the SSH agent's key when no key file is given (SSH_AUTH_SOCK passed through)", async () => {
    const socket = join(dir, 'agent.sock');
    agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
    try {
      await waitUntil('the SSH agent socket', () => existsSync(socket));
      execFileSync('ssh-add', ['-q', join(keys, 'deploy key')], { env: { ...process.env, SSH_AUTH_SOCK: socket }, stdio: 'pipe' });
      const { src, revisions } = source('agent', { knownHostsFile: join(keys, 'known hosts') }, { SSH_AUTH_SOCK: socket });
      await src.start();
      try {
        expect(src.stalled()).toBeUndefined();
        expect(revisions.map((r) => r.sha)).toEqual([gitIn(work)('rev-parse', 'HEAD')]);
      } finally {
        await src.stop();
      }
    } finally {
      agent.kill();
      agent = undefined;
    }
  });
});
