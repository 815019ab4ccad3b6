// Real bash as sshd runs a command on a Linux node: a non-interactive `bash -c` with no rc files and a bare
// environment (no locale unless a test gives one), in a directory of its own. The oracle the simulated bash and
// the Linux facts wire are held against.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BashRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export function realBash(script: string, options: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<BashRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'gc-bash-'));
  return new Promise((resolve) => {
    const child = execFile(
      'bash',
      ['--norc', '--noprofile', '-c', script],
      { cwd, env: { PATH: process.env.PATH, HOME: '/root', ...options.env } },
      (err, stdout, stderr) => {
        // Its directory goes with it (left behind, they were 1,350 in /tmp after a day of runs).
        rmSync(cwd, { recursive: true, force: true });
        resolve({ stdout, stderr, exitCode: err ? Number((err as { code?: number }).code ?? 1) : 0 });
      },
    );
    // A script that does not read its input closes it early: that is not an error of the run.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.stdin ?? '');
  });
}
