// `git daemon` on loopback: the git:// protocol for every repository under a directory, on a port that stays
// the same when the server is stopped and started again (a Git server that goes away and comes back).

import { type ChildProcess, spawn } from 'node:child_process';
import { freePort, untilListening } from './ports.js';

export interface GitDaemon {
  /** `git://127.0.0.1:PORT/NAME` */
  url(name: string): string;
  /** Starts it (again); resolves once it accepts connections. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function gitDaemon(basePath: string): Promise<GitDaemon> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  return {
    url: (name) => `git://127.0.0.1:${port}/${name}`,
    async start() {
      const started = spawn(
        'git',
        ['daemon', '--reuseaddr', '--export-all', `--base-path=${basePath}`, '--listen=127.0.0.1', `--port=${port}`],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      started.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      child = started;
      await untilListening(port, started, () => stderr);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      running.kill('SIGTERM');
      await new Promise((resolve) => running.once('exit', resolve));
    },
  };
}
