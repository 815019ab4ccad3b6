// What this groundcrew is: the package's version, and the commit it was built from. A Git checkout is asked; a
// packed tarball carries `dist/build-info.json` (written by `npm pack`'s prepack, scripts/build-assets.mjs).

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export interface BuildInfo {
  version: string;
  /** The commit's full object name, or `unknown` (neither a build-info file nor this package's own checkout). */
  commit: string;
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The commit of a Git checkout whose top level is this package (not a repo the package happens to sit in). */
function checkoutCommit(root: string): string | undefined {
  try {
    const [top, head] = execFileSync('git', ['rev-parse', '--show-toplevel', 'HEAD'], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    })
      .trim()
      .split('\n');
    return top && resolve(top) === resolve(root) && head && /^[0-9a-f]{40,64}$/.test(head) ? head : undefined;
  } catch {
    return undefined;
  }
}

/** The directory of groundcrew's own package.json above `from` (dist/src/cli when built, src/cli under tsx). */
export function packageRootOf(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (readJson(join(dir, 'package.json'))?.name === 'groundcrew') return dir;
    if (dirname(dir) === dir) return resolve(from, '..', '..', '..');
  }
}

/** The version now; the commit read on first use (a process start of git, which `--help` never pays). */
export function buildInfo(packageRoot: string): BuildInfo {
  const version = readJson(join(packageRoot, 'package.json'))?.version;
  let commit: string | undefined;
  return {
    version: typeof version === 'string' ? version : 'unknown',
    get commit() {
      if (commit === undefined) {
        // A checkout's HEAD first: its dist/build-info.json is as old as its last `npm run build`.
        const built = readJson(join(packageRoot, 'dist', 'build-info.json'))?.commit;
        commit = checkoutCommit(packageRoot) ?? (typeof built === 'string' && /^[0-9a-f]{40,64}$/.test(built) ? built : 'unknown');
      }
      return commit;
    },
  };
}
