// No rollback without a signature (issue 30, item 2), on `groundcrew run` as a process with a real Git remote and
// keys made by real gpg and ssh-keygen. With source.verify, a head that does not descend from the revision in
// force is refused whatever signed it: a force-push back to an older commit an allowed key signed, a re-push of an
// earlier accepted commit, a commit signed on another branch. `groundcrew source allow-rewind SHA` lets that
// exact sha in. Without source.verify, a rewind is applied and flagged (/api/revisions, the page, status).

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/wait-until.js';

interface Revision {
  sha: string;
  accepted: boolean;
  errors?: string[];
  rewind?: { from: string; allowed: boolean };
}

/** What one daemon's API says: its revisions (newest first) and a node's desired contrail version. */
function api(daemon: DaemonProcess) {
  const revisions = async () => (await (await fetch(`${daemon.url}/api/revisions`)).json()) as Revision[];
  return {
    revisions,
    /** The newest record of `sha` that matches `accepted`, once there is one. */
    revision: (sha: string, accepted: boolean) =>
      waitUntil(`${sha.slice(0, 12)} ${accepted}`, async () => (await revisions()).find((r) => r.sha === sha && r.accepted === accepted), {
        timeoutMs: 30_000,
      }),
    inForce: async () => (await revisions()).find((r) => r.accepted)?.sha,
    desired: async () =>
      ((await (await fetch(`${daemon.url}/api/nodes/win-compute-1`)).json()) as { desiredVersions: { contrail: string } }).desiredVersions
        .contrail,
  };
}

/** Sets the node's version in the work tree and commits (signed as told), without pushing: the commit. */
function commitVersion(daemon: DaemonProcess, version: string, how: string[]): string {
  writeFileSync(join(daemon.work, 'nodes', 'win-compute-1.yaml'), `versions:\n  contrail: "${version}"\n`);
  daemon.git(...how, 'commit', '-q', ...(how.length > 0 ? ['-S'] : []), '-am', `contrail ${version}`);
  return daemon.git('rev-parse', 'HEAD');
}

const forcePush = (daemon: DaemonProcess, sha: string) => daemon.git('push', '-q', '--force', 'origin', `${sha}:refs/heads/main`);

describe('source.verify: no rollback without a signature', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-rewind-'));
  const signerHome = join(dir, 'gnupg-signers');
  let daemon: DaemonProcess;
  let signed: string[] = [];

  beforeAll(async () => {
    mkdirSync(signerHome, { mode: 0o700 });
    execFileSync(
      'gpg',
      ['--batch', '--homedir', signerHome, '--passphrase', '', '--quick-gen-key', 'Alice <alice@example.org>', 'ed25519', 'sign', 'never'],
      {
        stdio: 'ignore',
      },
    );
    const listing = execFileSync('gpg', ['--batch', '--homedir', signerHome, '--with-colons', '--list-secret-keys'], { encoding: 'utf8' });
    const alice = /^fpr:+([0-9A-F]+):/m.exec(listing)?.[1] ?? '';
    const keyring = join(dir, 'allowed.asc');
    writeFileSync(keyring, execFileSync('gpg', ['--batch', '--homedir', signerHome, '--armor', '--export', alice]));
    // Bob's SSH key is allowed too: a rewind is refused whichever kind of key signed it.
    const bob = join(dir, 'bob');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'bob', '-f', bob]);
    const allowedSigners = join(dir, 'allowed_signers');
    writeFileSync(allowedSigners, `bob@example.org namespaces="git" ${execFileSync('cat', [`${bob}.pub`], { encoding: 'utf8' }).trim()}\n`);
    const gpgSigned = ['-c', 'gpg.format=openpgp', '-c', `user.signingkey=${alice}`];
    const sshSigned = ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${bob}`];
    daemon = await startDaemonProcess({
      dir,
      pollInterval: '200ms',
      source: ['verify:', `  gpg: { keyring: ${keyring} }`, `  ssh: { allowedSigners: ${allowedSigners} }`, '  allCommits: true'],
      gitEnv: { GNUPGHOME: signerHome },
      firstCommit: gpgSigned,
    });
    const first = daemon.git('rev-parse', 'HEAD');
    await api(daemon).revision(first, true);
    // Two signed commits pushed at once: the first (5.0.2) was never a head the daemon saw; the second is in force.
    const older = commitVersion(daemon, '5.0.2', gpgSigned);
    const newest = commitVersion(daemon, '5.0.3', sshSigned);
    daemon.git('push', '-q', 'origin', 'main');
    await api(daemon).revision(newest, true);
    // Another branch, from the first commit, with a commit Alice signed for it.
    daemon.git('checkout', '-q', '-b', 'staging', first);
    const otherBranch = commitVersion(daemon, '4.9.0', gpgSigned);
    daemon.git('checkout', '-q', 'main');
    signed = [first, older, newest, otherBranch];
  }, 90_000);

  afterAll(async () => {
    execFileSync('gpgconf', ['--homedir', signerHome, '--kill', 'all']);
    await daemon?.stop();
    // A daemon stopped while its nodes roll out again waits for them: over a minute on two busy cores.
  }, 180_000);

  it('refuses a force-push back to an older signed commit, a replay of an accepted one and a commit signed on another branch', async () => {
    const [first, older, newest, otherBranch] = signed as [string, string, string, string];
    const { revision, inForce, desired } = api(daemon);
    for (const [what, sha] of [
      ['an older commit Alice signed, never in force', older],
      ['the first commit, accepted before', first],
      ['a commit Alice signed on branch staging', otherBranch],
    ] as const) {
      forcePush(daemon, sha);
      const refused = await revision(sha, false);
      expect(refused.errors, what).toEqual([`not a descendant of ${newest}: a rollback needs a new signed commit (git revert)`]);
      expect(refused.rewind, what).toEqual({ from: newest, allowed: false });
      expect(await inForce(), what).toBe(newest);
      expect(await desired(), what).toBe('5.0.3');
    }
  });

  it('applies the exact sha an operator allowed with `groundcrew source allow-rewind`, and says so', async () => {
    const [, , newest, otherBranch] = signed as [string, string, string, string];
    const { revision, desired } = api(daemon);
    const refusedShort = await daemon.cli('source', 'allow-rewind', otherBranch.slice(0, 12), '--url', daemon.url);
    expect(refusedShort.status).toBe(1);
    expect(refusedShort.stderr).toMatch(/"sha" must be a full commit object name/);
    const noToken = await fetch(`${daemon.url}/api/source/allow-rewind`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sha: otherBranch }),
    });
    expect(noToken.status).toBe(401);
    const allowed = await daemon.cli('source', 'allow-rewind', otherBranch, '--url', daemon.url);
    expect(allowed.stderr).toBe('');
    expect(allowed.stdout).toMatch(/allowed; it is the source's head and was handed to intake again/);
    expect(await revision(otherBranch, true)).toMatchObject({ rewind: { from: newest, allowed: true } });
    await waitUntil('win-compute-1 on 4.9.0', async () => ((await desired()) === '4.9.0' ? true : undefined), { timeoutMs: 30_000 });
    const page = await (await fetch(`${daemon.url}/revisions`)).text();
    expect(page).toContain(`rewind from ${newest.slice(0, 12)}, allowed by an operator`);
  });
});

describe('without source.verify: a rewind is applied and flagged', () => {
  let daemon: DaemonProcess;
  afterAll(async () => daemon?.stop(), 180_000);

  it('applies a force-push back and shows it as a rewind on /api/revisions, the page and groundcrew status', async () => {
    daemon = await startDaemonProcess({ pollInterval: '200ms' });
    const first = daemon.git('rev-parse', 'HEAD');
    const { revision } = api(daemon);
    await revision(first, true);
    const newer = commitVersion(daemon, '5.0.2', []);
    daemon.git('push', '-q', 'origin', 'main');
    expect((await revision(newer, true)).rewind).toBeUndefined();
    forcePush(daemon, first);
    // The first commit again, accepted this time as a rewind from the newer one.
    const rewound = await waitUntil(
      'the rewind',
      async () => ((await api(daemon).revisions())[0]?.sha === first ? (await api(daemon).revisions())[0] : undefined),
      { timeoutMs: 30_000 },
    );
    expect(rewound).toMatchObject({ accepted: true, rewind: { from: newer, allowed: false } });
    const page = await (await fetch(`${daemon.url}/revisions`)).text();
    expect(page).toContain(`rewind from ${newer.slice(0, 12)}, applied: source.verify is off`);
    const status = await daemon.cli('status', '--url', daemon.url);
    expect(status.stdout).toContain(`a rewind from ${newer.slice(0, 12)} (not a descendant; source.verify is off)`);
  }, 60_000);
});
