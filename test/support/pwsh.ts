// Real PowerShell for the tests: the pwsh 7.6.9 that scripts/install-pwsh.sh puts in .tools/pwsh (the README's
// test command runs it and exports GC_PWSH). Installed on first use when a test file runs on its own.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

let cached: string | undefined;

/** The path of the real `pwsh`, installing it if it is not there yet. */
export function pwshPath(): string {
  if (cached) return cached;
  const fromEnv = process.env.GC_PWSH;
  if (fromEnv && existsSync(fromEnv)) {
    cached = fromEnv;
    return cached;
  }
  cached = execFileSync('bash', [join(ROOT, 'scripts', 'install-pwsh.sh')], { encoding: 'utf8' }).trim();
  return cached;
}
