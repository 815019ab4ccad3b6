// Cluster mode as an operator runs it: a lab of real sshd hosts, a bare Git repo holding the example inventory
// pointed at them, a three-member etcd, and groundcrew daemons as processes (dist/), each a cluster member
// with an SSH key of its own, so every host's call log names which member sent each command, and when.

import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeStatus } from '../../src/reconciler/status-store.js';
import { Lab } from '../lab/lab.js';
import {
  describeNodes,
  type ExampleRepo,
  exampleHosts,
  exampleRepo,
  NODES,
  servingUrl,
  signature,
  spawnDaemon,
  stopProcess,
  writeVersion,
} from '../support/example-lab.js';
import { waitUntil } from '../support/wait-until.js';
import { EtcdCluster } from './etcd-cluster.js';

export { BIN, NODES, sleep } from '../support/example-lab.js';

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

/** What start() has made so far: stop() takes down whatever is here, however far start() came. */
interface Made {
  dir?: string;
  etcd?: EtcdCluster;
  lab?: Lab;
  repo?: ExampleRepo;
  tokenFile?: string;
}

/** Made by haSuite() (ha-suite.ts) as a test file is collected; started before its tests, stopped after them. */
export class HaCluster {
  readonly members = new Map<string, Member>();
  #made: Made = {};
  #stopped = false;

  constructor(readonly options: HaOptions) {}

  get dir(): string {
    return this.#need('dir');
  }

  get etcd(): EtcdCluster {
    return this.#need('etcd');
  }

  get lab(): Lab {
    return this.#need('lab');
  }

  get work(): string {
    return this.#need('repo').work;
  }

  get tokenFile(): string {
    return this.#need('tokenFile');
  }

  #need<K extends keyof Made>(key: K): NonNullable<Made[K]> {
    const value = this.#made[key];
    if (value === undefined) throw new Error(`the cluster is not started (no ${key})`);
    return value as NonNullable<Made[K]>;
  }

  async start(): Promise<void> {
    const made = this.#made;
    try {
      made.dir = mkdtempSync(join(tmpdir(), 'gc-ha-'));
      made.etcd = new EtcdCluster(join(made.dir, 'etcd'), this.options.etcdPort);
      const [lab, etcd] = await Promise.allSettled([
        // Cluster mode is what these tests are about: its Windows hosts stay on the TypeScript interpreter (fast, steady timing).
        Lab.start({ hosts: exampleHosts(), rebootMs: this.options.rebootMs ?? 1500, callers: this.options.members, realPwsh: false }),
        made.etcd.start(),
      ]);
      if (lab.status === 'fulfilled') made.lab = lab.value;
      if (lab.status === 'rejected') throw lab.reason;
      if (etcd.status === 'rejected') throw etcd.reason;
      if (this.#stopped) throw new Error('the cluster was stopped while it started');
      const repo = exampleRepo(made.dir, lab.value);
      // The first commit names no node: the members start on it, and the inventory arrives once they all serve.
      writeFileSync(join(repo.work, 'instances.yaml'), 'instances: {}\n');
      cpSync(join(repo.work, 'nodes'), join(made.dir, 'nodes-later'), { recursive: true });
      rmSync(join(repo.work, 'nodes'), { recursive: true });
      made.tokenFile = join(made.dir, 'api-token');
      writeFileSync(made.tokenFile, randomBytes(16).toString('hex'));
      made.repo = repo;
      repo.commit('no node yet');
    } catch (err) {
      // The cause the test shows is the start's; what stop() could not take down, afterAll's stop() tries again.
      await this.stop().catch(() => undefined);
      throw err;
    }
  }

  git(...args: string[]): string {
    return this.#need('repo').git(...args);
  }

  /** Pushes the example inventory, pointed at the lab's hosts. */
  pushInventory(): string {
    const repo = this.#need('repo');
    writeFileSync(join(repo.work, 'instances.yaml'), repo.instances);
    cpSync(join(this.dir, 'nodes-later'), join(repo.work, 'nodes'), { recursive: true });
    return this.push('the example inventory, on the lab');
  }

  /** Asks for `version` of Contrail on `node` in the work tree (push() commits it). */
  setVersion(node: string, version: string): void {
    writeVersion(this.work, node, version);
  }

  /** A signed generic webhook ("fetch now") to one member; returns its HTTP status. */
  async hook(member: string): Promise<number> {
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const secret = readFileSync(this.tokenFile, 'utf8').trim();
    const res = await fetch(`${this.members.get(member)?.url}/hooks/generic`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'x-signature': signature(secret, body) },
    });
    return res.status;
  }

  /** Commits the work tree and pushes: the members find it at their next poll. */
  push(message: string): string {
    return this.#need('repo').commit(message);
  }

  configFor(member: string): string {
    const file = join(this.dir, `${member}.yaml`);
    writeFileSync(
      file,
      `source:
  url: ${this.#need('repo').origin}
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
    const env = { ...process.env, XDG_RUNTIME_DIR: join(this.dir, `run-${name}`) };
    const proc = spawnDaemon(
      this.configFor(name),
      (text) => {
        member.log = (member.log + text).slice(-400_000);
      },
      env,
    );
    const member: Member = { name, proc, url: '', log: '' };
    this.members.set(name, member);
    member.url = await servingUrl(proc, () => member.log, `member ${name}`);
    return member;
  }

  /** Starts these members (all of the options' by default) and resolves once etcd lists every one. */
  async startMembers(names = this.options.members): Promise<void> {
    await Promise.all(names.map((m) => this.startMember(m)));
    await this.registered(names);
  }

  /** Resolves once etcd lists these members (their leases live). */
  async registered(names: string[], timeoutMs = 20_000): Promise<void> {
    let listed: string[] = [];
    await waitUntil(
      () => `members ${names.join(', ')} registered (listed: ${listed.join(', ')})`,
      async () => {
        const out = await this.etcd.ctl(['get', '--prefix', '--keys-only', '/gc-test/members/']).catch(() => '');
        listed = out.split('\n').filter(Boolean);
        return names.every((n) => listed.includes(`/gc-test/members/${n}`));
      },
      { timeoutMs, intervalMs: 100 },
    );
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
    return [...(await this.nodesByMember()).values()].flat();
  }

  /** Each node as the member that owns it sees it (the others show what it last wrote to etcd). */
  async nodesByOwner(): Promise<Map<string, NodeStatus>> {
    const owners = await this.owners();
    const own = await this.nodesByMember();
    const out = new Map<string, NodeStatus>();
    for (const node of NODES) {
      const n = own.get(owners[node] ?? '')?.find((x) => x.name === node);
      if (n) out.set(node, n);
    }
    return out;
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
    let seen: NodeStatus[] = [];
    let inForce: (string | undefined)[] = [];
    let dead: string | undefined;
    await waitUntil(
      () => `converged on ${sha} (in force: ${inForce.join(', ')}):\n${describeNodes(seen)}\n${this.logTails()}`,
      async () => {
        const exited = [...this.members.values()].find((m) => (m.proc.exitCode !== null || m.proc.signalCode !== null) && !m.expectedExit);
        if (exited) dead = `member ${exited.name} exited (${exited.proc.exitCode ?? exited.proc.signalCode}):\n${this.logTails(40)}`;
        if (dead) return true;
        inForce = await this.revisions();
        seen = await this.nodes();
        const byOwner = await this.nodesByOwner().catch(() => new Map<string, NodeStatus>());
        return (
          inForce.every((r) => r === sha) &&
          NODES.every((name) => {
            const n = byOwner.get(name);
            return n?.state === 'verified' && n.lastAppliedRevision !== undefined && n.lastAppliedRevision === n.desiredRevision;
          })
        );
      },
      { timeoutMs, intervalMs: 250 },
    );
    if (dead) throw new Error(dead);
  }

  /** The end of each member's log, for a failure's message. */
  logTails(lines = 15): string {
    return [...this.members.values()].map((m) => `--- ${m.name}\n${m.log.trim().split('\n').slice(-lines).join('\n')}`).join('\n');
  }

  async signal(name: string, sig: NodeJS.Signals): Promise<void> {
    const member = this.members.get(name);
    if (!member || member.proc.exitCode !== null || member.proc.signalCode !== null) return;
    if (sig === 'SIGKILL' || sig === 'SIGTERM') {
      member.expectedExit = true;
      await stopProcess(member.proc, sig);
    } else member.proc.kill(sig);
  }

  /** Kills every member and takes down the lab and etcd, whatever start() came to (each step even if one before failed). */
  async stop(): Promise<void> {
    this.#stopped = true;
    const { dir, etcd, lab } = this.#made;
    try {
      await this.#keepLogs();
      for (const m of this.members.values()) {
        m.proc.kill('SIGCONT');
        await this.signal(m.name, 'SIGKILL');
      }
    } finally {
      try {
        await lab?.stop();
      } finally {
        await etcd?.stop();
        if (dir) rmSync(dir, { recursive: true, force: true });
      }
    }
  }

  /** GC_HA_LOGS=DIR keeps every member's log there, for a failure's post-mortem. */
  async #keepLogs(): Promise<void> {
    const keep = process.env.GC_HA_LOGS;
    const { etcd, lab } = this.#made;
    if (!keep) return;
    mkdirSync(keep, { recursive: true });
    for (const m of this.members.values()) writeFileSync(join(keep, `${m.name}.log`), m.log);
    for (const e of etcd?.names ?? []) writeFileSync(join(keep, `${e}.etcd.log`), etcd?.log(e) ?? '');
    for (const h of lab?.hosts ?? [])
      writeFileSync(
        join(keep, `${h.name}.calls`),
        ((await lab?.calls(h.name)) ?? [])
          .map((c) => `${c.at} ${c.caller} ${c.command.split('\n').slice(-1)[0]?.slice(0, 100)}`)
          .join('\n'),
      );
  }
}

/** The members that sent commands to each host, from the hosts' own call logs (the lab's own key excluded). */
export async function callersByHost(lab: Lab): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const host of lab.hosts) out[host.name] = [...new Set((await lab.calls(host.name)).map((c) => c.caller).filter((c) => c !== '-'))];
  return out;
}
