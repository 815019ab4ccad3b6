// The HA benchmark's cluster (bench/ha-scale.ts measures it): a Git repo of N simulated nodes, a three-member
// etcd on loopback (test/ha/etcd-cluster.ts), one process of simulated hosts that every member reaches through
// its socket (`sim.socket`: the members share the hosts, as they would share real ones), and groundcrew daemons
// as processes (dist/, built first), each a cluster member that can be killed with SIGKILL.

import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HostProcess } from '../src/sim/transports/host-process.js';
import { EtcdCluster } from '../test/ha/etcd-cluster.js';

const ROOT = join(import.meta.dirname, '..');
const ETCDCTL = process.env.GC_ETCDCTL ?? '/usr/bin/etcdctl';
export const PREFIX = '/gc-bench/';

/** Builds dist/ from the sources, so the members run this working tree's code as `groundcrew run` would. */
export function buildDaemon(): void {
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'inherit' });
}

/** A free loopback port, for a member's listen address (its URL is then known before it logs anything). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** A process's peak resident set (VmHWM), in MiB; 0 once it is gone. */
export function peakRssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Math.round(Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

/** The inventory's bare repo and a work tree that commits to it. */
export class BenchRepo {
  readonly origin: string;
  readonly work: string;

  constructor(dir: string) {
    this.origin = join(dir, 'origin.git');
    this.work = join(dir, 'work');
    execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', this.origin]);
    mkdirSync(this.work);
    this.git('init', '-q', '--initial-branch=main');
    this.git('remote', 'add', 'origin', this.origin);
  }

  git(...args: string[]): string {
    return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@groundcrew.invalid', ...args], {
      cwd: this.work,
      encoding: 'utf8',
    }).trim();
  }

  /** Writes the files (path relative to the work tree; null removes), commits, pushes; returns the sha. */
  commit(message: string, files: Record<string, string | null>): string {
    for (const [path, text] of Object.entries(files)) {
      const file = join(this.work, path);
      if (text === null) rmSync(file, { force: true });
      else {
        mkdirSync(join(file, '..'), { recursive: true });
        writeFileSync(file, text);
      }
    }
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    this.git('push', '-q', 'origin', 'main');
    return this.git('rev-parse', 'HEAD');
  }
}

export interface MemberProcess {
  name: string;
  proc: ChildProcess;
  url: string;
  /** The end of its output, for a failure's message. */
  log: string;
  killed: boolean;
  /** Date.now() when it was started (or started again). */
  startedAt: number;
}

export interface RoundOptions {
  dir: string;
  origin: string;
  etcdPort: number;
  leaseTtl: string;
  latencyMs: number;
  workers: number;
}

/** One round's etcd, host process and members: everything fresh, nothing kept from the round before. */
export class BenchRound {
  readonly members = new Map<string, MemberProcess>();

  private constructor(
    readonly options: RoundOptions,
    readonly etcd: EtcdCluster,
    readonly hosts: HostProcess,
  ) {}

  static async start(options: RoundOptions): Promise<BenchRound> {
    mkdirSync(options.dir, { recursive: true });
    const etcd = new EtcdCluster(join(options.dir, 'etcd'), options.etcdPort);
    await etcd.start();
    const hosts = await HostProcess.start({ socketDir: options.dir, rebootMs: 500 }).catch(async (err: Error) => {
      await etcd.stop();
      throw err;
    });
    return new BenchRound(options, etcd, hosts);
  }

  /** etcdctl with room for 10,000 nodes' records (EtcdCluster.ctl gives each call 2 s). */
  ctl(args: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        ETCDCTL,
        [`--endpoints=${this.etcd.endpoints.join(',')}`, '--command-timeout=20s', ...args],
        { env: { ...process.env, ETCDCTL_API: '3' }, maxBuffer: 1 << 30 },
        (err, stdout, stderr) => (err ? reject(new Error(`etcdctl ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout)),
      );
    });
  }

  /** Starts (or starts again) a member; resolves once its API answers. */
  async startMember(name: string): Promise<MemberProcess> {
    const { dir, origin, leaseTtl, latencyMs, workers } = this.options;
    const port = await freePort();
    const config = join(dir, `${name}.yaml`);
    writeFileSync(
      config,
      `source: { url: ${origin}, branch: main, pollInterval: 1s }
stateDir: ${join(dir, `state-${name}`)}
listen: 127.0.0.1:${port}
transport: sim
sim: { latencyMs: ${latencyMs}, socket: ${this.hosts.socket} }
workers: ${workers}
resyncInterval: 1h
reboot: { timeout: 10m, settle: 100ms, poll: 200ms }
log: { level: ${process.env.GC_BENCH_HA_LOG_LEVEL ?? 'warn'} }
cluster:
  member: ${name}
  leaseTtl: ${leaseTtl}
  prefix: ${PREFIX}${process.env.GC_BENCH_HA_START_RATE ? `\n  startRate: ${Number(process.env.GC_BENCH_HA_START_RATE)}` : ''}
  etcd: { endpoints: [${this.etcd.endpoints.join(', ')}] }
`,
    );
    // As an operator runs it (`groundcrew run`: dist/, no source maps), built by buildDaemon().
    const proc = spawn(process.execPath, [join(ROOT, 'dist', 'src', 'cli', 'main.js'), 'run', '--config', config], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, GROUNDCREW_RUNTIME_DIR: join(dir, `run-${name}`) },
    });
    const member: MemberProcess = { name, proc, url: `http://127.0.0.1:${port}`, log: '', killed: false, startedAt: Date.now() };
    // GC_BENCH_HA_LOGS=DIR keeps each member's whole output there (NAME.log, a restart appended), for a timeline.
    const logs = process.env.GC_BENCH_HA_LOGS;
    if (logs) mkdirSync(logs, { recursive: true });
    const file = logs ? createWriteStream(join(logs, `${name}.log`), { flags: 'a' }) : undefined;
    proc.once('exit', () => file?.end());
    const append = (d: Buffer) => {
      member.log = (member.log + d.toString()).slice(-20_000);
      file?.write(d);
    };
    proc.stdout?.on('data', append);
    proc.stderr?.on('data', append);
    this.members.set(name, member);
    for (const deadline = Date.now() + 120_000; ; await sleep(200)) {
      const res = await fetch(`${member.url}/api/revisions`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (res?.ok) return member;
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`member ${name} did not start:\n${member.log}`);
    }
  }

  /** Throws when a member not killed on purpose has exited. */
  checkAlive(): void {
    for (const m of this.members.values())
      if (!m.killed && (m.proc.exitCode !== null || m.proc.signalCode !== null))
        throw new Error(`member ${m.name} exited (${m.proc.exitCode ?? m.proc.signalCode}):\n${m.log}`);
  }

  /** Resolves once etcd lists these members (their leases live). */
  async registered(names: string[], timeoutMs = 120_000): Promise<void> {
    for (const deadline = Date.now() + timeoutMs; ; await sleep(200)) {
      this.checkAlive();
      const listed = (await this.ctl(['get', '--prefix', '--keys-only', `${PREFIX}members/`]).catch(() => '')).split('\n');
      if (names.every((n) => listed.includes(`${PREFIX}members/${n}`))) return;
      if (Date.now() > deadline) throw new Error(`members ${names.join(', ')} not registered`);
    }
  }

  /** The owner of each node, as etcd has it now. */
  async owners(): Promise<Map<string, string>> {
    const lines = (await this.ctl(['get', '--prefix', `${PREFIX}owners/`])).split('\n').filter(Boolean);
    const owners = new Map<string, string>();
    for (let i = 0; i + 1 < lines.length; i += 2)
      owners.set((lines[i] as string).slice(`${PREFIX}owners/`.length), (JSON.parse(lines[i + 1] as string) as { member: string }).member);
    return owners;
  }

  /**
   * From the statuses the owners wrote to etcd: nodes verified on `sha`, and nodes verified on their desired
   * revision (a commit that does not touch a node leaves its applied revision as it was).
   */
  async verified(sha: string): Promise<{ onSha: number; settled: number }> {
    const out = await this.ctl(['get', '--prefix', `${PREFIX}status/`, '--print-value-only']);
    let onSha = 0;
    let settled = 0;
    for (const line of out.split('\n')) {
      if (!line.startsWith('{')) continue;
      const n = JSON.parse(line) as { state: string; lastAppliedRevision?: string; desiredRevision?: string };
      if (n.state !== 'verified') continue;
      if (n.lastAppliedRevision === sha) onSha++;
      if (n.lastAppliedRevision !== undefined && n.lastAppliedRevision === n.desiredRevision) settled++;
    }
    return { onSha, settled };
  }

  /** Nodes whose status in etcd carries an error: `name state phase: code message`, for a failure's message. */
  async errors(limit = 8): Promise<string[]> {
    const out = await this.ctl(['get', '--prefix', `${PREFIX}status/`, '--print-value-only']).catch(() => '');
    const found: string[] = [];
    for (const line of out.split('\n')) {
      if (!line.startsWith('{') || found.length >= limit) continue;
      const n = JSON.parse(line) as { name: string; state: string; phase?: string; lastError?: { code: string; message: string } };
      if (n.lastError) found.push(`${n.name} ${n.state} ${n.phase ?? ''}: ${n.lastError.code} ${n.lastError.message.slice(0, 300)}`);
    }
    return found;
  }

  /** The size of etcd's database (the largest of the three), in MiB. */
  async etcdDbMiB(): Promise<number> {
    const out = await this.ctl(['endpoint', 'status', '-w', 'json']);
    const sizes = (JSON.parse(out) as { Status: { dbSize: number } }[]).map((s) => s.Status.dbSize);
    return Math.round(Math.max(...sizes) / 1048576);
  }

  async kill(name: string): Promise<void> {
    const m = this.members.get(name);
    if (!m || m.proc.exitCode !== null || m.proc.signalCode !== null) return;
    m.killed = true;
    const exited = new Promise((resolve) => m.proc.once('exit', resolve));
    m.proc.kill('SIGKILL');
    await exited;
  }

  /** Kills every process of the round at once, without waiting (the benchmark is being stopped). */
  abandon(): void {
    for (const m of this.members.values()) m.proc.kill('SIGKILL');
    this.hosts.stop();
    void this.etcd.stop();
  }

  async stop(): Promise<void> {
    for (const name of this.members.keys()) await this.kill(name);
    this.hosts.stop();
    await this.etcd.stop();
    rmSync(this.options.dir, { recursive: true, force: true });
  }
}
