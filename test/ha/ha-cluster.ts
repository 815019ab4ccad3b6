// Cluster mode as an operator runs it: a lab of real sshd hosts, a bare Git repo holding the example inventory
// pointed at them, a three-member etcd, and groundcrew daemons as processes (dist/), each a cluster member
// with an SSH key of its own, so every host's call log names which member sent each command, and when.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeStatus } from '../../src/reconciler/status-store.js';
import { Lab, type LabHostSpec } from '../lab/lab.js';
import { EtcdCluster } from './etcd-cluster.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const EXAMPLE_ADDRESSES: Record<string, string> = {
  ctrl1: '192.0.2.10',
  'compute-l1': '192.0.2.21',
  'compute-l2': '192.0.2.22',
  'win-compute-1': '192.0.2.31',
  'win-compute-2': '192.0.2.32',
  'win-compute-3': '192.0.2.33',
};
export const NODES = Object.keys(EXAMPLE_ADDRESSES);
const HOSTS: LabHostSpec[] = [
  // The external controller: the config API and Keystone as kolla-ansible deployed it (the example's admin password).
  { name: 'ctrl1', os: 'linux', linux: { configApi: true, keystone: { password: 'c0ntrail123' } } },
  { name: 'compute-l1', os: 'linux' },
  { name: 'compute-l2', os: 'linux' },
  { name: 'win-compute-1', os: 'windows' },
  { name: 'win-compute-2', os: 'windows' },
  { name: 'win-compute-3', os: 'windows', windows: { features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } } },
];

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Member {
  name: string;
  proc: ChildProcess;
  url: string;
  log: string;
  /** Killed by the test. */
  expectedExit?: boolean;
}

export interface HaOptions {
  members: string[];
  /** One per test file: etcd's client ports from here, peer ports from here + 10. */
  etcdPort: number;
  leaseTtl?: string;
  rebootMs?: number;
  /** How often members look at Git (1s by default); with a long one, commits arrive by webhook. */
  pollInterval?: string;
}

export class HaCluster {
  readonly members = new Map<string, Member>();
  #inventory = '';

  private constructor(
    readonly lab: Lab,
    readonly etcd: EtcdCluster,
    readonly dir: string,
    readonly work: string,
    readonly origin: string,
    readonly tokenFile: string,
    readonly options: HaOptions,
  ) {}

  static async start(options: HaOptions): Promise<HaCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'gc-ha-'));
    const etcd = new EtcdCluster(join(dir, 'etcd'), options.etcdPort);
    let lab: Lab | undefined;
    try {
      [lab] = await Promise.all([Lab.start({ hosts: HOSTS, rebootMs: options.rebootMs ?? 1500, callers: options.members }), etcd.start()]);
    } catch (err) {
      await lab?.stop();
      await etcd.stop();
      throw err;
    }
    const origin = join(dir, 'origin.git');
    const work = join(dir, 'work');
    execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', origin]);
    cpSync(join(ROOT, 'inventory-repo-example'), work, { recursive: true });
    const instances = join(work, 'instances.yaml');
    let text = readFileSync(instances, 'utf8');
    for (const [node, address] of Object.entries(EXAMPLE_ADDRESSES))
      text = text.replace(new RegExp(`${address.replace(/\./g, '\\.')}(?!\\d)`, 'g'), lab.host(node).address);
    // The first commit names no node: the members start on it, and the inventory arrives once they all serve.
    writeFileSync(instances, 'instances: {}\n');
    cpSync(join(work, 'nodes'), join(dir, 'nodes-later'), { recursive: true });
    rmSync(join(work, 'nodes'), { recursive: true });
    const tokenFile = join(dir, 'api-token');
    writeFileSync(tokenFile, randomBytes(16).toString('hex'));
    const cluster = new HaCluster(lab, etcd, dir, work, origin, tokenFile, options);
    cluster.#inventory = text;
    cluster.git('init', '-q', '--initial-branch=main');
    cluster.git('remote', 'add', 'origin', origin);
    cluster.push('no node yet');
    return cluster;
  }

  git(...args: string[]): string {
    return execFileSync('git', ['-c', 'user.name=operator', '-c', 'user.email=op@groundcrew.invalid', ...args], {
      cwd: this.work,
      encoding: 'utf8',
    }).trim();
  }

  /** Pushes the example inventory, pointed at the lab's hosts. */
  pushInventory(): string {
    writeFileSync(join(this.work, 'instances.yaml'), this.#inventory);
    cpSync(join(this.dir, 'nodes-later'), join(this.work, 'nodes'), { recursive: true });
    return this.push('the example inventory, on the lab');
  }

  /** A signed generic webhook ("fetch now") to one member; returns its HTTP status. */
  async hook(member: string): Promise<number> {
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const secret = readFileSync(this.tokenFile, 'utf8').trim();
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const res = await fetch(`${this.members.get(member)?.url}/hooks/generic`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature': signature },
    });
    return res.status;
  }

  /** Commits the work tree and pushes: the members find it at their next poll. */
  push(message: string): string {
    this.git('add', '-A');
    this.git('commit', '-qm', message);
    this.git('push', '-q', 'origin', 'main');
    return this.git('rev-parse', 'HEAD');
  }

  configFor(member: string): string {
    const file = join(this.dir, `${member}.yaml`);
    writeFileSync(
      file,
      `source:
  url: ${this.origin}
  branch: main
  pollInterval: ${this.options.pollInterval ?? '1s'}
stateDir: ${join(this.dir, `state-${member}`)}
listen: 127.0.0.1:0
apiTokenFile: ${this.tokenFile}
webhooks:
  generic: { secretFile: ${this.tokenFile} }
transport: ssh
ssh:
  user: root
  windowsUser: Administrator
  keyFile: ${this.lab.callerKey(member)}
workers: 8
resyncInterval: 1h
reboot: { timeout: 20s, settle: 300ms, poll: 300ms }
log: { level: ${process.env.GC_HA_LOG_LEVEL ?? 'info'} }
cluster:
  member: ${member}
  leaseTtl: ${this.options.leaseTtl ?? '3s'}
  prefix: /gc-test/
  etcd:
    endpoints: [${this.etcd.endpoints.join(', ')}]
`,
    );
    return file;
  }

  /** Starts a member's daemon; resolves once it serves. */
  async startMember(name: string): Promise<Member> {
    const proc = spawn(process.execPath, [BIN, 'run', '--config', this.configFor(name)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, XDG_RUNTIME_DIR: join(this.dir, `run-${name}`) },
    });
    const member: Member = { name, proc, url: '', log: '' };
    this.members.set(name, member);
    const append = (d: Buffer) => {
      member.log = (member.log + d.toString()).slice(-400_000);
    };
    proc.stdout.on('data', append);
    proc.stderr.on('data', append);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(member.log)?.[1];
      if (url) {
        member.url = url;
        return member;
      }
      if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`member ${name} did not start:\n${member.log}`);
      await sleep(20);
    }
  }

  /** Resolves once etcd lists these members (their leases live). */
  async registered(names: string[], timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const out = await this.etcd.ctl(['get', '--prefix', '--keys-only', '/gc-test/members/']).catch(() => '');
      const listed = out.split('\n').filter(Boolean);
      if (names.every((n) => listed.includes(`/gc-test/members/${n}`))) return;
      if (Date.now() > deadline) throw new Error(`members ${names.join(', ')} not registered: ${listed.join(', ')}`);
      await sleep(100);
    }
  }

  /** Owner of each node as etcd has it now. */
  async owners(): Promise<Record<string, string>> {
    const out = await this.etcd.ctl(['get', '--prefix', '/gc-test/owners/']);
    const lines = out.split('\n').filter(Boolean);
    const owners: Record<string, string> = {};
    for (let i = 0; i + 1 < lines.length; i += 2)
      owners[(lines[i] as string).slice('/gc-test/owners/'.length)] = (JSON.parse(lines[i + 1] as string) as { member: string }).member;
    return owners;
  }

  /** The elected leader as etcd has it now: the value of the oldest candidate key (etcd's election protocol). */
  async leader(): Promise<string | undefined> {
    const out = await this.etcd.ctl(['get', '--prefix', '/gc-test/election/leader/', '--sort-by=CREATE', '--order=ASCEND', '--limit=1']);
    return out.split('\n').filter(Boolean)[1];
  }

  /** The revision in force the leader wrote, if any. */
  async inForce(): Promise<{ sha: string; leader: string } | undefined> {
    const out = await this.etcd.ctl(['get', '--print-value-only', '/gc-test/revision']);
    return out.trim() ? (JSON.parse(out) as { sha: string; leader: string }) : undefined;
  }

  /** Each live member's /api/nodes. */
  async nodesByMember(): Promise<Map<string, NodeStatus[]>> {
    const out = new Map<string, NodeStatus[]>();
    for (const m of this.members.values()) {
      if (m.proc.exitCode !== null || m.proc.signalCode !== null) continue;
      const res = await fetch(`${m.url}/api/nodes`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (res?.ok) out.set(m.name, (await res.json()) as NodeStatus[]);
    }
    return out;
  }

  /** Every node's status, from the members that serve it. */
  async nodes(): Promise<NodeStatus[]> {
    const all: NodeStatus[] = [];
    for (const m of this.members.values()) {
      if (m.proc.exitCode !== null || m.proc.signalCode !== null) continue;
      const res = await fetch(`${m.url}/api/nodes`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
      if (res?.ok) all.push(...((await res.json()) as NodeStatus[]));
    }
    return all;
  }

  /** The revision in force at each live member (its newest accepted one). */
  async revisions(): Promise<(string | undefined)[]> {
    const live = [...this.members.values()].filter((m) => m.proc.exitCode === null && m.proc.signalCode === null);
    return Promise.all(
      live.map(async (m) => {
        const res = await fetch(`${m.url}/api/revisions`, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
        // A member that does not answer (paused) is not counted.
        if (!res?.ok) return null;
        const revisions = (await res.json()) as { sha: string; accepted: boolean }[];
        return revisions.find((r) => r.accepted)?.sha;
      }),
    ).then((all) => all.filter((r) => r !== null));
  }

  /** Waits until every live member has `sha` in force and every node is verified on its desired revision. */
  async converged(sha: string, timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let seen: NodeStatus[] = [];
    for (;;) {
      const dead = [...this.members.values()].find((m) => m.proc.exitCode !== null && !m.expectedExit);
      if (dead) throw new Error(`member ${dead.name} exited (${dead.proc.exitCode}):\n${this.logTails(40)}`);
      const inForce = await this.revisions();
      seen = await this.nodes();
      // Each node as the member that owns it sees it (the others show what it last wrote to etcd).
      const owners = await this.owners().catch(() => ({}) as Record<string, string>);
      const own = await this.nodesByMember();
      const ok =
        inForce.every((r) => r === sha) &&
        NODES.every((name) => {
          const n = own.get(owners[name] ?? '')?.find((x) => x.name === name);
          return n?.state === 'verified' && n.lastAppliedRevision !== undefined && n.lastAppliedRevision === n.desiredRevision;
        });
      if (ok) return;
      if (Date.now() > deadline)
        throw new Error(
          `not converged on ${sha} (in force: ${inForce.join(', ')}):\n${seen.map((n) => `${n.name} ${n.state} ${n.phase ?? ''} ${n.waiting ?? ''} ${n.lastError?.message ?? ''}`).join('\n')}\n${this.logTails()}`,
        );
      await sleep(250);
    }
  }

  /** The end of each member's log, for a failure's message. */
  logTails(lines = 15): string {
    return [...this.members.values()].map((m) => `--- ${m.name}\n${m.log.trim().split('\n').slice(-lines).join('\n')}`).join('\n');
  }

  async signal(name: string, sig: NodeJS.Signals): Promise<void> {
    const member = this.members.get(name);
    if (!member || member.proc.exitCode !== null || member.proc.signalCode !== null) return;
    if (sig === 'SIGKILL' || sig === 'SIGTERM') member.expectedExit = true;
    if (sig === 'SIGKILL' || sig === 'SIGTERM') {
      const exited = new Promise((resolve) => member.proc.once('exit', resolve));
      member.proc.kill(sig);
      await exited;
    } else member.proc.kill(sig);
  }

  async stop(): Promise<void> {
    // GC_HA_LOGS=DIR keeps every member's log there, for a failure's post-mortem.
    const keep = process.env.GC_HA_LOGS;
    if (keep) {
      mkdirSync(keep, { recursive: true });
      for (const m of this.members.values()) writeFileSync(join(keep, `${m.name}.log`), m.log);
      for (const e of this.etcd.names) writeFileSync(join(keep, `${e}.etcd.log`), this.etcd.log(e));
      for (const h of this.lab.hosts)
        writeFileSync(
          join(keep, `${h.name}.calls`),
          (await this.lab.calls(h.name)).map((c) => `${c.at} ${c.caller} ${c.command.split('\n').slice(-1)[0]?.slice(0, 100)}`).join('\n'),
        );
    }
    for (const m of this.members.values()) {
      m.proc.kill('SIGCONT');
      await this.signal(m.name, 'SIGKILL');
    }
    await this.lab.stop();
    await this.etcd.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The members that sent commands to each host, from the hosts' own call logs (the lab's own key excluded). */
export async function callersByHost(lab: Lab): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const host of lab.hosts) out[host.name] = [...new Set((await lab.calls(host.name)).map((c) => c.caller).filter((c) => c !== '-'))];
  return out;
}
