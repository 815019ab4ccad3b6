// Who signed a commit, checked by git itself against keys the operator allowed: a GPG keyring (imported into
// a GNUPGHOME of its own, so no other key on the host counts) and an SSH allowed-signers file (git's
// gpg.ssh.allowedSignersFile). A commit nobody allowed signed must not reach a node.

import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface SignaturePolicy {
  /** A keyring file (armored or binary) of the GPG keys whose signatures are accepted. */
  gpgKeyring?: string;
  /** An allowed-signers file (ssh-keygen ALLOWED SIGNERS format) of the SSH keys whose signatures are accepted. */
  sshAllowedSigners?: string;
  /** Every commit since the last good revision must be signed too, not only the head. */
  allCommits?: boolean;
}

export interface SignatureVerdict {
  ok: boolean;
  /** The commit this verdict is about (the head, or the first commit of the range that failed). */
  sha: string;
  kind?: 'gpg' | 'ssh';
  /** The signer: the GPG user id or the SSH principal. */
  signer?: string;
  /** The key: GPG key id or SSH key fingerprint. */
  key?: string;
  /** In the operator's words: who signed, or why the commit is refused. */
  reason: string;
}

// git's %G?: G good, U good with unknown validity, B bad, X/Y expired signature/key, R revoked key,
// E cannot be checked (the key is missing), N no signature.
const STATUS_WORDS: Record<string, string> = {
  B: 'a bad signature (the commit was changed after it was signed)',
  X: 'an expired signature',
  Y: 'a signature by an expired key',
  R: 'a signature by a revoked key',
  E: 'a signature by a key that is not allowed',
};

export class CommitVerifier {
  readonly #gnupgHome: string;
  #keyringStamp = '';

  /** `workDir` holds the verifier's own GNUPGHOME (in the state directory). */
  constructor(
    private readonly policy: SignaturePolicy,
    workDir: string,
  ) {
    this.#gnupgHome = join(workDir, 'gnupg');
  }

  get configured(): boolean {
    return this.policy.gpgKeyring !== undefined || this.policy.sshAllowedSigners !== undefined;
  }

  /**
   * The head `sha` of the repository at `repo`, and with allCommits every commit after `since` up to it
   * (all of its history when there is no `since`): the first that fails decides.
   */
  async verify(repo: string, sha: string, since?: string): Promise<SignatureVerdict> {
    const shas = this.policy.allCommits ? await this.#range(repo, sha, since) : [sha];
    let head: SignatureVerdict | undefined;
    for (const commit of shas) {
      const verdict = await this.#verifyOne(repo, commit);
      if (!verdict.ok)
        return commit === sha ? verdict : { ...verdict, reason: `${commit.slice(0, 12)}, after the last good revision: ${verdict.reason}` };
      if (commit === sha) head = verdict;
    }
    return head ?? (await this.#verifyOne(repo, sha));
  }

  async #range(repo: string, sha: string, since?: string): Promise<string[]> {
    const known = since
      ? await this.#git(repo, ['cat-file', '-e', `${since}^{commit}`]).then(
          () => true,
          () => false,
        )
      : false;
    const spec = known ? [`${since}..${sha}`] : [sha];
    const out = await this.#git(repo, ['rev-list', ...spec]);
    return out.split('\n').filter(Boolean);
  }

  async #verifyOne(repo: string, sha: string): Promise<SignatureVerdict> {
    const raw = await this.#git(repo, ['cat-file', 'commit', sha]);
    const header = raw.slice(0, raw.indexOf('\n\n'));
    const kind = /^gpgsig -----BEGIN SSH SIGNATURE-----/m.test(header)
      ? 'ssh'
      : /^gpgsig(-sha256)? -----BEGIN PGP SIGNATURE-----/m.test(header)
        ? 'gpg'
        : undefined;
    if (!kind) return { ok: false, sha, reason: 'nobody signed it' };
    const allowedFile = kind === 'gpg' ? this.policy.gpgKeyring : this.policy.sshAllowedSigners;
    if (allowedFile === undefined)
      return {
        ok: false,
        sha,
        kind,
        reason: `it carries ${kind === 'gpg' ? 'a GPG' : 'an SSH'} signature, and source.verify allows no ${kind} keys`,
      };
    if (kind === 'gpg') this.#importKeyring(allowedFile);
    const [status = 'E', signer = '', key = '', fingerprint = ''] = (
      await this.#git(repo, ['log', '-1', '--no-show-signature', '--format=%G?%n%GS%n%GK%n%GF', sha], kind)
    ).split('\n');
    // GPG: only the allowed keys are in this GNUPGHOME, so a good signature from one of them is allowed (git
    // says U: the keys carry no ownertrust). SSH: U means a valid signature by a key no principal matches.
    const allowed = status === 'G' || (kind === 'gpg' && status === 'U');
    const shownKey = fingerprint || key;
    if (allowed) return { ok: true, sha, kind, signer, key: shownKey, reason: `signed by ${signer || shownKey} (${kind} key ${shownKey})` };
    const what =
      status === 'U' ? 'a signature by a key that is not allowed' : (STATUS_WORDS[status] ?? `a signature git cannot accept (${status})`);
    return { ok: false, sha, kind, key: shownKey, reason: `it carries ${what}${shownKey ? ` (${kind} key ${shownKey})` : ''}` };
  }

  /** The allowed GPG keys, imported into the verifier's own GNUPGHOME again whenever the keyring file changes. */
  #importKeyring(file: string): void {
    const info = statSync(file);
    const stamp = `${file}:${info.size}:${info.mtimeMs}`;
    if (stamp === this.#keyringStamp) return;
    rmSync(this.#gnupgHome, { recursive: true, force: true });
    mkdirSync(this.#gnupgHome, { recursive: true, mode: 0o700 });
    // Synchronous on purpose: one import per keyring change, before any verification reads the home.
    const keys = readFileSync(file);
    const gpg = spawnSync('gpg', ['--batch', '--quiet', '--homedir', this.#gnupgHome, '--import'], {
      input: keys,
    });
    if (gpg.status !== 0) throw new Error(`cannot import the GPG keyring ${file}: ${String(gpg.stderr).trim().split('\n')[0]}`);
    this.#keyringStamp = stamp;
  }

  async #git(repo: string, args: string[], kind?: 'gpg' | 'ssh'): Promise<string> {
    const config =
      kind === 'ssh' && this.policy.sshAllowedSigners ? ['-c', `gpg.ssh.allowedSignersFile=${this.policy.sshAllowedSigners}`] : [];
    const env = { ...process.env, GNUPGHOME: this.#gnupgHome, GIT_TERMINAL_PROMPT: '0' };
    const { stdout } = await run('git', ['-C', repo, ...config, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  }
}
