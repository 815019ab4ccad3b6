// The clone in the state directory: made once (no working tree), or an existing one's remote URL brought up to
// date, through simple-git with only the environment git-environment.ts and git-credential.ts give git. The
// credential of the URL reaches the processes that talk to the server through their environment, never their
// arguments; the others (set-url, reads) get no credential at all.

import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type SimpleGit, simpleGit } from 'simple-git';
import { CREDENTIAL_VARIABLES, type GitRemote } from './git-credential.js';
import { GIT_VARIABLES } from './git-environment.js';

export interface CloneOptions {
  checkout: string;
  branch: string;
  /** The URL without its credential, and the environment that carries it (git-credential.ts). */
  remote: GitRemote;
  /** git's environment without the credential (git-environment.ts). */
  env: Record<string, string>;
  signal: AbortSignal;
}

/** The clone made (or its remote URL set to the one without a credential); a simple-git in it, without the credential. */
export async function openClone({ checkout, branch, remote, env, signal }: CloneOptions): Promise<SimpleGit> {
  const git = (gitEnv: Record<string, string>, baseDir?: string) =>
    simpleGit({
      ...(baseDir ? { baseDir } : {}),
      abort: signal,
      allowEnvironment: [...GIT_VARIABLES, ...CREDENTIAL_VARIABLES],
      // GIT_SSH_COMMAND and the credential helper are ours (git-environment.ts, git-credential.ts): simple-git
      // refuses them unless told.
      unsafe: { allowUnsafeSshCommand: true, allowUnsafeConfigEnvCount: true, allowUnsafeCredentialHelper: true },
    }).env(gitEnv);
  if (existsSync(join(checkout, '.git'))) {
    // A clone made by an earlier version kept the URL with its credential here: replaced by the bare one.
    await git(env, checkout).remote(['set-url', 'origin', remote.url]);
  } else {
    await rm(checkout, { recursive: true, force: true });
    // No working tree: every revision, the last good one at a restart too, is read from the object database.
    await git({ ...env, ...remote.env }).clone(remote.url, checkout, ['--branch', branch, '--single-branch', '--no-tags', '--no-checkout']);
  }
  return git(env, checkout);
}

/** The fetch of `branch` into its remote-tracking ref, without the maintenance git would start after it. */
export function fetchArgs(branch: string): string[] {
  return [
    ...['-c', 'maintenance.auto=false', '-c', 'gc.auto=0', 'fetch', '--prune', '--no-tags', '--no-write-fetch-head'],
    ...['--no-recurse-submodules', '--no-show-forced-updates', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`],
  ];
}
