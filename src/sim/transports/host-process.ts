// Starts the process of simulated hosts (host-worker.ts): the daemon's `transport: sim` with
// `sim.ownProcess`, and the scale benchmark, keep the simulator out of their own process. One process holds
// every host: hosts reach each other (Keystone, the config API) over the simulated network, which is in-process.

import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface HostProcessOptions {
  /** Where the socket goes. */
  socketDir: string;
  rebootMs: number;
  /** Where host states live; none keeps them in the process's memory. */
  stateDir?: string;
}

/** A request to a watched host: when the host process received it, and the pid of the process that sent it. */
export interface HostCall {
  host: string;
  at: number;
  pid?: number;
}

export class HostProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly socket: string,
  ) {}

  static async start(options: HostProcessOptions): Promise<HostProcess> {
    // The worker next to this file: host-worker.js once built; from the sources (tests, benchmarks), the .ts
    // through tsx, whatever loader (if any) runs this process.
    const fromSources = import.meta.url.endsWith('.ts');
    const worker = new URL(`./host-worker${fromSources ? '.ts' : '.js'}`, import.meta.url);
    const socket = join(options.socketDir, `sim-hosts-${process.pid}-${Date.now()}.sock`);
    const args = [socket, String(options.rebootMs), ...(options.stateDir ? [options.stateDir] : [])];
    const child = fork(worker, args, {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      ...(fromSources ? { execArgv: ['--import', 'tsx'], cwd: fileURLToPath(new URL('../../..', import.meta.url)) } : {}),
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.once('message', () => resolve());
        child.once('exit', (code) => reject(new Error(`the simulated hosts' process ended at start (exit ${code})`)));
      });
    } catch (err) {
      child.kill();
      throw err;
    }
    return new HostProcess(child, socket);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** From now on, `onCall` hears of every request to these hosts (no caller is slowed: IPC, after the fact). */
  watch(hosts: string[], onCall: (call: HostCall) => void): void {
    this.child.on('message', (message: { call?: HostCall }) => {
      if (message.call) onCall(message.call);
    });
    this.child.send({ watch: hosts });
  }

  /** The process's resident set, in bytes (from /proc). */
  rss(): number {
    const status = this.child.pid ? readFileSync(`/proc/${this.child.pid}/status`, 'utf8') : '';
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
  }

  stop(): void {
    if (this.child.connected) this.child.disconnect();
    this.child.kill();
  }
}
