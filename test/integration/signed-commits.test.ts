// Signed commits (source.verify), on `groundcrew run` as a process with a real Git remote: keys made here by
// real gpg and ssh-keygen, commits signed by git. An unsigned commit, one signed by a GPG key not in the
// keyring and one signed by an SSH key not in the allowed signers are rejected like invalid ones (the last
// good revision stays in force, /api/revisions says who signed or that nobody did); a commit signed by an
// allowed key is applied. `groundcrew validate --verify` checks a local repo's head the same way.

import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommitVerifier } from '../../src/source/commit-signatures.js';
import { BIN, type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/wait-until.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-signed-'));
const work = join(dir, 'work');
const signerHome = join(dir, 'gnupg-signers');

interface Revision {
  sha: string;
  accepted: boolean;
  errors?: string[];
  signature?: { ok: boolean; kind?: string; signer?: string; reason: string };
}

const git = (args: string[]) => (daemon as DaemonProcess).git(...args);

/** A GPG key made by real gpg in the signers' home: its fingerprint. */
function gpgKey(uid: string): string {
  execFileSync('gpg', ['--batch', '--homedir', signerHome, '--passphrase', '', '--quick-gen-key', uid, 'ed25519', 'sign', 'never'], {
    stdio: 'ignore',
  });
  const listing = execFileSync('gpg', ['--batch', '--homedir', signerHome, '--with-colons', '--list-secret-keys', uid], {
    encoding: 'utf8',
  });
  return /^fpr:+([0-9A-F]+):/m.exec(listing)?.[1] ?? '';
}

function sshKey(name: string): string {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  return file;
}

const sign = {
  none: [] as string[],
  gpg: (fpr: string) => ['-c', 'gpg.format=openpgp', '-c', `user.signingkey=${fpr}`],
  ssh: (key: string) => ['-c', 'gpg.format=ssh', '-c', `user.signingkey=${key}`],
};

/** Changes a node's version, commits (signed as told) and pushes: the new head. */
function commitVersion(version: string, how: string[], message: string): string {
  writeFileSync(join(work, 'nodes', 'win-compute-1.yaml'), `versions:\n  contrail: "${version}"\n`);
  git([...how, 'commit', '-q', ...(how.length > 0 ? ['-S'] : []), '-am', message]);
  git(['push', '-q', 'origin', 'main']);
  return git(['rev-parse', 'HEAD']);
}

let daemon: DaemonProcess | undefined;
let url = '';
let alice = '';
let mallory = '';
let bob = '';
let eve = '';
const revisions = async () => (await (await fetch(`${url}/api/revisions`)).json()) as Revision[];
const revision = (sha: string) =>
  waitUntil(`revision ${sha.slice(0, 12)}`, async () => (await revisions()).find((r) => r.sha === sha), { timeoutMs: 30_000 });

beforeAll(async () => {
  mkdirSync(signerHome, { mode: 0o700 });
  alice = gpgKey('Alice <alice@example.org>');
  mallory = gpgKey('Mallory <mallory@example.org>');
  bob = sshKey('bob');
  eve = sshKey('eve');
  // What the operator allows: Alice's GPG key and Bob's SSH key, nothing else.
  const keyring = join(dir, 'allowed.asc');
  writeFileSync(keyring, execFileSync('gpg', ['--batch', '--homedir', signerHome, '--armor', '--export', alice]));
  const allowedSigners = join(dir, 'allowed_signers');
  const bobPub = execFileSync('cat', [`${bob}.pub`], { encoding: 'utf8' }).trim();
  writeFileSync(allowedSigners, `bob@example.org namespaces="git" ${bobPub}\n`);

  daemon = await startDaemonProcess({
    dir,
    pollInterval: '200ms',
    source: ['verify:', `  gpg: { keyring: ${keyring} }`, `  ssh: { allowedSigners: ${allowedSigners} }`],
    gitEnv: { GNUPGHOME: signerHome },
    firstCommit: sign.gpg(alice),
  });
  url = daemon.url;
}, 60_000);

afterAll(async () => {
  execFileSync('gpgconf', ['--homedir', signerHome, '--kill', 'all']);
  await daemon?.stop();
});

describe('source.verify: only commits signed by an allowed key reach a node', () => {
  it("applies the first commit, signed by Alice's allowed GPG key, and says who signed it", async () => {
    const head = git(['rev-parse', 'HEAD']);
    const first = await revision(head);
    expect(first).toMatchObject({ accepted: true, signature: { ok: true, kind: 'gpg', signer: 'Alice <alice@example.org>' } });
  });

  it('rejects an unsigned commit, one by a GPG key outside the keyring and one by an SSH key outside the allowed signers', async () => {
    const cases = [
      { how: sign.none, version: '5.0.7', reason: /nobody signed it/ },
      { how: sign.gpg(mallory), version: '5.0.8', reason: /a signature by a key that is not allowed/ },
      { how: sign.ssh(eve), version: '5.0.9', reason: /a signature by a key that is not allowed \(ssh key SHA256:/ },
    ];
    for (const c of cases) {
      const sha = commitVersion(c.version, c.how, `bump to ${c.version}`);
      const seen = await revision(sha);
      expect(seen.accepted, c.version).toBe(false);
      expect(seen.errors?.[0], c.version).toMatch(new RegExp(`commit ${sha.slice(0, 12)} is not trusted: `));
      expect(seen.errors?.[0], c.version).toMatch(c.reason);
      expect(seen.signature?.ok).toBe(false);
    }
    // None of them reached the node: its desired version is still the example's.
    const node = (await (await fetch(`${url}/api/nodes/win-compute-1`)).json()) as { desiredVersions: { contrail: string } };
    expect(node.desiredVersions.contrail).toBe('5.0.1');
  });

  it("applies a commit signed by Bob's allowed SSH key, and the node follows it", async () => {
    const sha = commitVersion('5.0.2', sign.ssh(bob), 'bump to 5.0.2, signed by Bob');
    expect(await revision(sha)).toMatchObject({ accepted: true, signature: { ok: true, kind: 'ssh', signer: 'bob@example.org' } });
    await waitUntil(
      'win-compute-1 on 5.0.2',
      async () => {
        const node = (await (await fetch(`${url}/api/nodes/win-compute-1`)).json()) as {
          desiredVersions: { contrail: string };
          lastAppliedRevision?: string;
        };
        return node.desiredVersions.contrail === '5.0.2' && node.lastAppliedRevision === sha ? node : undefined;
      },
      { timeoutMs: 30_000 },
    );
  });

  it('groundcrew validate --verify checks the head of a local repo the same way', async () => {
    const validate = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
        execFile(process.execPath, [BIN, 'validate', work, '--verify', ...args], { encoding: 'utf8' }, (err, stdout, stderr) =>
          resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr }),
        ),
      );
    const allowed = ['--gpg-keyring', join(dir, 'allowed.asc'), '--allowed-signers', join(dir, 'allowed_signers')];
    const good = await validate(...allowed);
    expect(good.stdout).toMatch(/signed by bob@example\.org \(ssh key SHA256:/);
    expect(good.code).toBe(0);
    commitVersion('5.0.3', sign.none, 'unsigned, local only');
    const bad = await validate(...allowed);
    expect(bad.stderr).toMatch(/is not trusted: nobody signed it/);
    expect(bad.code).toBe(1);
    const noKeys = await validate();
    expect(noKeys.code).toBe(2);
  });
});

describe('source.verify allCommits', () => {
  it('refuses a signed head whose history since the last good revision holds an unsigned commit, naming it', async () => {
    const lastGood = git(['rev-parse', 'HEAD']);
    const unsigned = commitVersion('5.0.4', sign.none, 'unsigned, in the middle');
    const head = commitVersion('5.0.5', sign.ssh(bob), 'signed head on top');
    const policy = { sshAllowedSigners: join(dir, 'allowed_signers'), gpgKeyring: join(dir, 'allowed.asc') };
    const scratch = mkdtempSync(join(dir, 'verifier-'));
    expect(await new CommitVerifier(policy, scratch).verify(work, head, lastGood)).toMatchObject({ ok: true, signer: 'bob@example.org' });
    const all = await new CommitVerifier({ ...policy, allCommits: true }, scratch).verify(work, head, lastGood);
    expect(all).toMatchObject({ ok: false, sha: unsigned });
    expect(all.reason).toBe(`${unsigned.slice(0, 12)}, after the last good revision: nobody signed it`);
  });
});
