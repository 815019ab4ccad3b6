// Cluster members in this process: each the daemon `groundcrew run` assembles (cli/daemon.ts), on one process of
// simulated hosts they share (`sim.socket`, as members share real hosts), a real Git remote of the example
// inventory shared by all, and a real etcd. No lab, no root: for the tests that look at what members do with what
// they read from etcd. Each member's log is kept, line by line.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { type Daemon, startDaemon } from '../../src/cli/daemon.js';
import { DaemonConfigSchema } from '../../src/cli/daemon-config.js';
import type { NodeStatus } from '../../src/reconciler/status-store.js';
import { HostProcess } from '../../src/sim/transports/host-process.js';
import { waitUntil } from '../support/wait-until.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'inventory-repo-example');

export interface SimMember {
  name: string;
  daemon: Daemon;
  /** Every line it logged, parsed. */
  log: Record<string, unknown>[];
}

export interface SimMembersOptions {
  endpoints: string[];
  prefix: string;
  leaseTtl?: string;
  /** More of each member's cluster config (etcd auth, for one). */
  etcd?: Record<string, unknown>;
  /** More of each member's source config (`verify`, for one). */
  source?: Record<string, unknown>;
  /** Git options that sign every commit (`-c gpg.format=ssh -c user.signingkey=…`); unsigned when not given. */
  signWith?: string[];
}

export class SimMembers {
  readonly dir = mkdtempSync(join(tmpdir(), 'gc-simm-'));
  readonly origin = join(this.dir, 'origin.git');
  readonly work = join(this.dir, 'work');
  readonly members = new Map<string, SimMember>();
  #hosts: HostProcess | undefined;

  constructor(readonly options: SimMembersOptions) {
    execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', this.origin]);
    cpSync(EXAMPLE, this.work, { recursive: true });
    this.git('init', '-q', '--initial-branch=main');
    this.git('remote', 'add', 'origin', this.origin);
    this.commit('the example inventory');
  }

  git(...args: string[]): string {
    return execFileSync('git', ['-c', 'user.name=Ada Operator', '-c', 'user.email=ada@groundcrew.invalid', ...args], {
      cwd: this.work,
      encoding: 'utf8',
    }).trim();
  }

  /** Commits the work tree as it is (empty allowed) and pushes; the new head. */
  commit(message: string): string {
    this.git('add', '-A');
    const sign = this.options.signWith;
    this.git(...(sign ?? []), 'commit', '-q', ...(sign ? ['-S'] : []), '--allow-empty', '-m', message);
    this.git('push', '-q', 'origin', 'main');
    return this.git('rev-parse', 'HEAD');
  }

  /** Starts member `name` (`extra`: more of its daemon config); resolves once it serves. */
  async start(name: string, extra: Record<string, unknown> = {}): Promise<SimMember> {
    this.#hosts ??= await HostProcess.start({ socketDir: this.dir, rebootMs: 50 });
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const config = DaemonConfigSchema.parse({
      source: { url: this.origin, branch: 'main', pollInterval: '1s', ...this.options.source },
      stateDir: join(this.dir, `state-${name}`),
      listen: '127.0.0.1:0',
      transport: 'sim',
      sim: { latencyMs: 0, socket: this.#hosts.socket },
      reboot: { timeout: '20s', settle: '20ms', poll: '20ms' },
      resyncInterval: '1h',
      workers: 4,
      cluster: {
        member: name,
        leaseTtl: this.options.leaseTtl ?? '3s',
        prefix: this.options.prefix,
        etcd: { endpoints: this.options.endpoints, ...this.options.etcd },
      },
      ...extra,
    });
    const daemon = await startDaemon(config, { log: pino({ level: 'info' }, sink) });
    const member = { name, daemon, log: lines };
    this.members.set(name, member);
    return member;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.members.values()].map((m) => m.daemon.stop().catch(() => undefined)));
    this.members.clear();
    this.#hosts?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** GET `path` of member `name`: its status code and body. */
  async get(name: string, path: string): Promise<{ status: number; body: string }> {
    const member = this.members.get(name);
    if (!member) throw new Error(`no member ${name}`);
    const res = await fetch(`${member.daemon.url}${path}`, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: await res.text() };
  }

  async nodes(name: string): Promise<NodeStatus[]> {
    const res = await this.get(name, '/api/nodes');
    if (res.status !== 200) throw new Error(`member ${name}: /api/nodes answered ${res.status}: ${res.body.slice(0, 300)}`);
    return JSON.parse(res.body) as NodeStatus[];
  }

  /** The accepted revisions member `name` recorded, newest first. */
  async accepted(name: string): Promise<string[]> {
    const res = await this.get(name, '/api/revisions');
    return (JSON.parse(res.body) as { sha: string; accepted: boolean }[]).filter((r) => r.accepted).map((r) => r.sha);
  }

  /** Resolves when every member has `sha` in force and every node it shows is verified on its desired revision. */
  async converged(sha: string, nodes: readonly string[], timeoutMs = 90_000): Promise<void> {
    let seen = '';
    await waitUntil(
      () => `every member on ${sha.slice(0, 12)}, every node verified:\n${seen}\n${this.logTails()}`,
      async () => {
        const views: string[] = [];
        let ok = true;
        for (const name of this.members.keys()) {
          const accepted = (await this.accepted(name))[0];
          const shown = await this.nodes(name);
          views.push(
            `${name}: in force ${accepted?.slice(0, 12)}; ${shown.map((n) => `${n.name} ${n.state} ${n.waiting ?? ''}`).join(', ')}`,
          );
          ok &&=
            accepted === sha &&
            nodes.every((n) => {
              const s = shown.find((x) => x.name === n);
              return s?.state === 'verified' && s.lastAppliedRevision !== undefined && s.lastAppliedRevision === s.desiredRevision;
            });
        }
        seen = views.join('\n');
        return ok;
      },
      { timeoutMs },
    );
  }

  /** The last lines of each member's log, for a failure's message. */
  logTails(lines = 25): string {
    return [...this.members.values()]
      .map(
        (m) =>
          `--- ${m.name}\n${m.log
            .slice(-lines)
            .map(
              (l) =>
                `${String(l.msg)} ${JSON.stringify({ ...l, msg: undefined, time: undefined, pid: undefined, hostname: undefined, level: undefined })}`,
            )
            .join('\n')}`,
      )
      .join('\n');
  }
}
