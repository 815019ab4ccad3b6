// git in a test's work tree, as a test author: one identity for every test commit, output trimmed.

import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function gitIn(cwd: string, env?: NodeJS.ProcessEnv): (...args: string[]) => string {
  return (...args) =>
    execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@groundcrew.invalid', ...args], {
      cwd,
      encoding: 'utf8',
      ...(env ? { env: { ...process.env, ...env } } : {}),
    }).trim();
}

/** A commit that changes only a comment in instances.yaml (the message), pushed to `origin`; its sha. */
export function pushComment(work: string, message: string): string {
  const git = gitIn(work);
  writeFileSync(join(work, 'instances.yaml'), `# ${message}\n`);
  git('add', '.');
  git('commit', '-qm', message);
  git('push', '-q', 'origin', 'main');
  return git('rev-parse', 'HEAD');
}
