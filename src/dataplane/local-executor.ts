// The local executor: bash on the machine groundcrew runs on, for managing its own Linux host.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { errors, type GroundcrewError, markSent } from '../errors.js';
import { commandName, startDeadline } from './deadline.js';
import type { Command, CommandResult, Executor, RunOptions } from './executor.js';

export class LocalExecutor implements Executor {
  readonly os = 'linux' as const;

  run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    return new Promise((resolve, reject) => {
      let ended: GroundcrewError | undefined;
      const end = (error: GroundcrewError) => {
        ended ??= error;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      // Before the spawn: a caller that has already cancelled starts nothing.
      const deadline = startDeadline(opts, commandName('local ', cmd), end);
      // Its own process group, so a timeout or abort ends everything the script started.
      const child = spawn('bash', ['-c', cmd.script], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => stdout.push(c));
      child.stderr.on('data', (c: Buffer) => stderr.push(c));
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.stdin ?? '');
      // 'error' without a pid: bash never started (ENOENT, EAGAIN), so the script never ran.
      child.on('error', (err) =>
        end(markSent(errors.GC_CONNECTION_LOST(`local bash could not run: ${err.message}`, err), child.pid !== undefined)),
      );
      child.on('close', (code, signal) => {
        deadline.clear();
        if (ended) return reject(ended);
        resolve({
          exitCode: code ?? 128 + (signal === 'SIGKILL' ? 9 : 15),
          stdout: Buffer.concat(stdout).toString('utf8'),
          stderr: Buffer.concat(stderr).toString('utf8'),
          durationMs: performance.now() - started,
        });
      });
    });
  }

  async close(): Promise<void> {}
}
