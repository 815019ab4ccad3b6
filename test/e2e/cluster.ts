// An operator's world for the end-to-end stories: a lab of real sshd hosts (3 Linux, 3 Windows), a bare
// Git repo holding the example inventory pointed at them, and the real daemon (dist/, a process) following
// it. Tests act only as an operator does: git push, webhooks, the CLI and the HTTP API.

import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NodeStatus, RevisionStatus } from '../../src/reconciler/status-store.js';
import { Lab } from '../lab/lab.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
export const WINDOWS = ['win-compute-1', 'win-compute-2', 'win-compute-3'];
export const LINUX = ['ctrl1', 'compute-l1', 'compute-l2'];
/** The example inventory's addresses, replaced by the lab's. */
const EXAMPLE_ADDRESSES: Record<string, string> = {
  ctrl1: '192.0.2.10',
  'compute-l1': '192.0.2.21',
  'compute-l2': '192.0.2.22',
  'win-compute-1': '192.0.2.31',
  'win-compute-2': '192.0.2.32',
  'win-compute-3': '192.0.2.33',
};

export type NodeJson = NodeStatus & { history?: { state: string; event?: string; detail?: string }[]; reports?: unknown[] };

export class E2eCluster {
  daemon?: ChildProcess;
  url = '';
  log = '';
  #deliveries = 0;

  private constructor(
    readonly lab: Lab,
    readonly dir: string,
    readonly work: string,
    readonly config: string,
    readonly secret: string,
    readonly tokenFile: string,
  ) {}

  static async start(): Promise<E2eCluster> {
    const lab = await Lab.start({
      hosts: [
        // The external controller kolla-ansible and c-a-d deployed: the config API, Keystone with the example's password.
        { name: 'ctrl1', os: 'linux', linux: { configApi: true, keystone: { password: 'c0ntrail123' } } },
        { name: 'compute-l1', os: 'linux' },
        // A CentOS 7 era host: docker-compose v1 only.
        { name: 'compute-l2', os: 'linux', linux: { profile: 'centos-7' } },
        { name: 'win-compute-1', os: 'windows' },
        { name: 'win-compute-2', os: 'windows' },
        // Prepared by hand and on the signed vRouter: nothing to reboot for.
        { name: 'win-compute-3', os: 'windows', windows: { features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } } },
      ],
      rebootMs: 1500,
    });
    const dir = mkdtempSync(join(tmpdir(), 'gc-e2e-'));
    const origin = join(dir, 'origin.git');
    const work = join(dir, 'work');
    execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', origin]);
    cpSync(join(ROOT, 'inventory-repo-example'), work, { recursive: true });
    const instances = join(work, 'instances.yaml');
    let text = readFileSync(instances, 'utf8');
    for (const [node, address] of Object.entries(EXAMPLE_ADDRESSES))
      text = text.replace(new RegExp(`${address.replace(/\./g, '\\.')}(?!\\d)`, 'g'), lab.host(node).address);
    writeFileSync(instances, text);
    const secret = randomBytes(16).toString('hex');
    mkdirSync(join(dir, 'etc'));
    writeFileSync(join(dir, 'etc', 'webhook-secret'), secret);
    const tokenFile = join(dir, 'etc', 'api-token');
    writeFileSync(tokenFile, randomBytes(16).toString('hex'));
    const config = join(dir, 'etc', 'groundcrew.yaml');
    writeFileSync(
      config,
      `source:
  url: ${origin}
  branch: main
  pollInterval: 1h            # every change in these stories arrives by webhook
stateDir: ${join(dir, 'state')}
listen: 127.0.0.1:0
apiTokenFile: ${tokenFile}
webhooks:
  github: { secretFile: ${join(dir, 'etc', 'webhook-secret')} }
transport: ssh
ssh:
  user: root
  windowsUser: Administrator
  keyFile: ${lab.privateKey}
workers: 16
resyncInterval: 1h
reboot: { timeout: 20s, settle: 300ms, poll: 400ms }
log: { level: info }
`,
    );
    const cluster = new E2eCluster(lab, dir, work, config, secret, tokenFile);
    cluster.git('init', '-q', '--initial-branch=main');
    cluster.git('remote', 'add', 'origin', origin);
    cluster.git('add', '.');
    cluster.git('commit', '-qm', 'the example inventory, on the lab');
    cluster.git('push', '-q', 'origin', 'main');
    return cluster;
  }

  git(...args: string[]): string {
    return execFileSync('git', ['-c', 'user.name=operator', '-c', 'user.email=op@groundcrew.invalid', ...args], {
      cwd: this.work,
      encoding: 'utf8',
    }).trim();
  }

  head(): string {
    return this.git('rev-parse', 'HEAD');
  }

  /** The daemon as systemd would run it; resolves once it serves. */
  async startDaemon(): Promise<void> {
    const daemon = spawn(process.execPath, [BIN, 'run', '--config', this.config], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.daemon = daemon;
    const start = this.log.length;
    daemon.stdout.on('data', (d: Buffer) => {
      this.log += d.toString();
    });
    daemon.stderr.on('data', (d: Buffer) => {
      this.log += d.toString();
    });
    const deadline = Date.now() + 30_000;
    for (;;) {
      const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(this.log.slice(start))?.[1];
      if (url) {
        this.url = url;
        return;
      }
      if (daemon.exitCode !== null || Date.now() > deadline) throw new Error(`the daemon did not start:\n${this.log.slice(start)}`);
      await sleep(20);
    }
  }

  async kill9(): Promise<void> {
    const daemon = this.daemon;
    if (!daemon || daemon.exitCode !== null) return;
    const exited = new Promise((resolve) => daemon.once('exit', resolve));
    daemon.kill('SIGKILL');
    await exited;
  }

  async stopDaemon(): Promise<number | null> {
    const daemon = this.daemon;
    if (!daemon || daemon.exitCode !== null) return daemon?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => daemon.once('exit', resolve));
    daemon.kill('SIGTERM');
    return exited;
  }

  /** Signs a GitHub push hook for the current head, the way GitHub would. */
  async hook(overrides: { secret?: string; delivery?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    const body = overrides.body ?? JSON.stringify({ ref: 'refs/heads/main', after: this.head() });
    const signature = `sha256=${createHmac('sha256', overrides.secret ?? this.secret)
      .update(body)
      .digest('hex')}`;
    return fetch(`${this.url}/hooks/github`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': overrides.delivery ?? `delivery-${++this.#deliveries}`,
        'x-hub-signature-256': signature,
        ...overrides.headers,
      },
    });
  }

  /** Commit what the callback changed, push, and send the webhook; returns the new head. */
  async push(message: string, change: () => void): Promise<string> {
    change();
    this.git('add', '-A');
    this.git('commit', '-qm', message);
    this.git('push', '-q', 'origin', 'main');
    const res = await this.hook();
    if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
    return this.head();
  }

  edit(file: string, change: (text: string) => string): void {
    const path = join(this.work, file);
    writeFileSync(path, change(readFileSync(path, 'utf8')));
  }

  setVersion(node: string, version: string, mode = 'autocorrect'): void {
    writeFileSync(join(this.work, 'nodes', `${node}.yaml`), `versions:\n  contrail: "${version}"\nmode: ${mode}\n`);
  }

  async api<T>(path: string, init: RequestInit = {}): Promise<T> {
    const res = await fetch(`${this.url}${path}`, init);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  nodes(): Promise<NodeJson[]> {
    return this.api<NodeJson[]>('/api/nodes');
  }

  node(name: string): Promise<NodeJson> {
    return this.api<NodeJson>(`/api/nodes/${name}`);
  }

  revisions(): Promise<RevisionStatus[]> {
    return this.api<RevisionStatus[]>('/api/revisions');
  }

  async reconcile(nodes: string[] = []): Promise<void> {
    const token = readFileSync(this.tokenFile, 'utf8');
    await this.api('/api/reconcile', {
      method: 'POST',
      body: JSON.stringify({ nodes }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
  }

  /** Polls the API until `check` holds for the nodes; the last answer is in the error otherwise. */
  async waitFor(what: string, check: (nodes: NodeJson[]) => boolean, timeoutMs = 60_000): Promise<NodeJson[]> {
    const deadline = Date.now() + timeoutMs;
    let nodes: NodeJson[] = [];
    for (;;) {
      nodes = await this.nodes().catch(() => []);
      if (nodes.length > 0 && check(nodes)) return nodes;
      if (Date.now() > deadline)
        throw new Error(
          `timed out waiting for ${what}:\n${nodes.map((n) => `${n.name} ${n.state} ${n.phase ?? ''} ${n.waiting ?? ''} ${n.lastError?.message ?? ''}`).join('\n')}`,
        );
      await sleep(100);
    }
  }

  /** Every listed node verified at its desired revision, with `sha` the revision in force. */
  async converged(sha: string, names = [...LINUX, ...WINDOWS], timeoutMs = 90_000): Promise<NodeJson[]> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.revisions().catch(() => []))[0]?.sha !== sha) {
      if (Date.now() > deadline) throw new Error(`revision ${sha} never arrived`);
      await sleep(50);
    }
    return this.waitFor(
      `${names.join(', ')} verified`,
      (nodes) =>
        names.every((name) => {
          const n = nodes.find((x) => x.name === name);
          return n?.state === 'verified' && n.lastAppliedRevision === n.desiredRevision;
        }),
      timeoutMs,
    );
  }

  /** What each host was asked, from its own command log: counts per host. */
  async commandCounts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const host of this.lab.hosts) out[host.name] = (await this.lab.commandLog(host.name)).length;
    return out;
  }

  /** State changes each host recorded itself (the model's journal): lengths per host. */
  journals(): Record<string, number> {
    return Object.fromEntries(this.lab.hosts.map((h) => [h.name, h.model.state.journal.length]));
  }

  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) =>
      execFile(process.execPath, [BIN, ...args, '--url', this.url], { encoding: 'utf8' }, (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      ),
    );
  }

  async stop(): Promise<void> {
    await this.kill9();
    await this.lab.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
