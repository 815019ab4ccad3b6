// A remote that is a path on this machine, read in place: the branch's head and that commit's objects come
// through one long-lived `git cat-file --batch` in the remote's own repository, so a webhook's look starts no
// process (a `git fetch` from a local remote starts two: git and the `git-upload-pack` it runs; their start was
// most of a webhook's time to its first command, docs/BENCHMARKS.md). The clone is fetched later, off that path.
// cat-file resolves a ref name on each request (git-cat-file(1): any object name; git re-reads a loose ref and a
// changed packed-refs each lookup, and scans for packs it has not seen on a miss), so a push is seen at once.

import { existsSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GitObjects } from './git-objects.js';

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** A branch name that reads as one object name on cat-file's input line (git check-ref-format's rules are stricter). */
const BRANCH = /^(?!.*\.\.)(?!\/)(?!.*\/\/)[A-Za-z0-9._/-]+(?<![./])$/;

/** The git directory of a remote URL that is a local path (`/srv/repo.git`, `file:///srv/repo`); else undefined. */
export function localGitDir(url: string): string | undefined {
  let path: string;
  try {
    path = url.startsWith('file://') ? fileURLToPath(url) : url;
  } catch {
    return undefined;
  }
  if (!isAbsolute(path)) return undefined;
  // A working copy's .git (a directory: a .git file, a linked worktree, is left to git fetch), or a bare repository.
  const candidates = [join(path, '.git'), path];
  return candidates.find((dir) => isDirectory(dir) && existsSync(join(dir, 'HEAD')) && isDirectory(join(dir, 'objects')));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class LocalRemote {
  readonly objects: GitObjects;

  constructor(
    readonly gitDir: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.objects = new GitObjects(gitDir, env);
  }

  /** The commit `branch` points at in the remote, or undefined (no such branch, not a commit, a branch name refused). */
  async head(branch: string): Promise<string | undefined> {
    if (!BRANCH.test(branch)) return undefined;
    const object = await this.objects.read(`refs/heads/${branch}`);
    if (object?.type !== 'commit' || !OID.test(object.oid)) return undefined;
    return object.oid;
  }

  close(): void {
    this.objects.close();
  }
}
