// The local executor: bash on the machine groundcrew runs on, for managing its own Linux host.

import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { DataplaneError } from './errors.js';
import type { Command, CommandResult, Executor, RunOptions } from './executor.js';

export class LocalExecutor implements Executor {
  readonly os = 'linux' as const;

  run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    const label = cmd.label ? ` (${cmd.label})` : '';
    if (opts.signal?.aborted) return Promise.reject(new DataplaneError('GC_COMMAND_ABORTED', `local command${label} was cancelled`));
    return new Promise((resolve, reject) => {
      // Its own process group, so a timeout or abort ends everything the script started.
      const child = spawn('bash', ['-c', cmd.script], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      const stdout: Buffer[] = [];
      const stderr: Buffer[] = [];
      let ended: DataplaneError | undefined;
      const end = (error: DataplaneError) => {
        ended ??= error;
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(
        () => end(new DataplaneError('GC_COMMAND_TIMEOUT', `local command${label} ran past ${opts.timeoutMs} ms and was ended`)),
        opts.timeoutMs,
      );
      const onAbort = () => end(new DataplaneError('GC_COMMAND_ABORTED', `local command${label} was cancelled`));
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (c: Buffer) => stdout.push(c));
      child.stderr.on('data', (c: Buffer) => stderr.push(c));
      child.stdin.on('error', () => undefined);
      child.stdin.end(opts.stdin ?? '');
      child.on('error', (err) => end(new DataplaneError('GC_CONNECTION_LOST', `local bash could not run: ${err.message}`, err)));
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', onAbort);
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
