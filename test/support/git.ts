// git in a test's work tree, as a test author: one identity for every test commit, output trimmed.

import { execFileSync } from 'node:child_process';

export function gitIn(cwd: string, env?: NodeJS.ProcessEnv): (...args: string[]) => string {
  return (...args) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@groundcrew.invalid', ...args], {
      cwd,
      encoding: 'utf8',
      ...(env ? { env: { ...process.env, ...env } } : {}),
    }).trim();
}
