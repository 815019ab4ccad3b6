// A real etcd cluster of three members on loopback ports (the Debian etcd-server binary), each with its own
// data directory; members can be killed and started again. Every process it starts is killed by stop().

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { waitUntil } from '../support/wait-until.js';

const ETCD = process.env.GC_ETCD ?? '/usr/bin/etcd';
export const ETCDCTL = process.env.GC_ETCDCTL ?? '/usr/bin/etcdctl';

export class EtcdCluster {
  readonly #procs = new Map<string, ChildProcess>();
  readonly #logs = new Map<string, string>();
  readonly names: string[];

  /** `basePort`: client ports basePort+0..2, peer ports basePort+10..12 (one base per test file). */
  constructor(
    readonly dir: string,
    readonly basePort: number,
    size = 3,
  ) {
    this.names = Array.from({ length: size }, (_, i) => `e${i + 1}`);
  }

  clientUrl(name: string): string {
    return `http://127.0.0.1:${this.basePort + this.names.indexOf(name)}`;
  }

  peerUrl(name: string): string {
    return `http://127.0.0.1:${this.basePort + 10 + this.names.indexOf(name)}`;
  }

  get endpoints(): string[] {
    return this.names.map((n) => this.clientUrl(n));
  }

  async start(): Promise<void> {
    for (const name of this.names) this.startMember(name);
    await this.waitHealthy(this.names.length);
  }

  startMember(name: string): void {
    const data = join(this.dir, name);
    mkdirSync(data, { recursive: true });
    const child = spawn(
      ETCD,
      [
        '--name',
        name,
        '--data-dir',
        data,
        '--listen-client-urls',
        this.clientUrl(name),
        '--advertise-client-urls',
        this.clientUrl(name),
        '--listen-peer-urls',
        this.peerUrl(name),
        '--initial-advertise-peer-urls',
        this.peerUrl(name),
        '--initial-cluster',
        this.names.map((n) => `${n}=${this.peerUrl(n)}`).join(','),
        '--initial-cluster-state',
        'new',
        '--initial-cluster-token',
        `gc-test-${this.basePort}`,
        // Two cores shared with other work: a slower heartbeat than the default avoids needless elections.
        '--heartbeat-interval',
        '100',
        '--election-timeout',
        '1000',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.#logs.set(name, `${this.#logs.get(name) ?? ''}--- started\n`);
    child.on('exit', (code, signal) => this.#logs.set(name, `${this.#logs.get(name) ?? ''}--- exited ${code ?? signal}\n`));
    child.stderr?.on('data', (d: Buffer) => this.#logs.set(name, ((this.#logs.get(name) ?? '') + d.toString()).slice(-20_000)));
    this.#procs.set(name, child);
  }

  async kill(name: string): Promise<void> {
    const child = this.#procs.get(name);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  log(name: string): string {
    return this.#logs.get(name) ?? '';
  }

  /** etcdctl against the given members (all by default). */
  ctl(args: string[], members = this.names): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        ETCDCTL,
        [`--endpoints=${members.map((m) => this.clientUrl(m)).join(',')}`, '--command-timeout=2s', ...args],
        { env: { ...process.env, ETCDCTL_API: '3' } },
        (err, stdout, stderr) => (err ? reject(new Error(`etcdctl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)),
      );
    });
  }

  /** Waits until `count` members answer healthy (a quorum writes). */
  async waitHealthy(count: number, timeoutMs = 30_000): Promise<void> {
    await waitUntil(
      () => `etcd: ${count} healthy members\n${this.names.map((n) => `${n}: ${this.log(n).slice(-2000)}`).join('\n')}`,
      async () => {
        const healthy = await Promise.all(
          this.names.map((n) =>
            this.ctl(['endpoint', 'health'], [n]).then(
              () => true,
              () => false,
            ),
          ),
        );
        return healthy.filter(Boolean).length >= count;
      },
      { timeoutMs, intervalMs: 200 },
    );
  }

  async stop(): Promise<void> {
    await Promise.all(this.names.map((n) => this.kill(n)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
