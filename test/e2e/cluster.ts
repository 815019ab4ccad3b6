// An operator's world for the end-to-end stories: a lab of real sshd hosts (3 Linux, 3 Windows), a bare
// Git repo holding the example inventory pointed at them, and the real daemon (dist/, a process) following
// it. Tests act only as an operator does: git push, webhooks, the CLI and the HTTP API.

import { type ChildProcess, execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IntakeVerdict, NodeStatus } from '../../src/reconciler/status-store.js';
import { Lab } from '../lab/lab.js';
import {
  BIN,
  describeNodes,
  type ExampleRepo,
  exampleHosts,
  exampleRepo,
  LINUX,
  servingUrl,
  signature,
  sleep,
  spawnDaemon,
  stopProcess,
  WINDOWS,
  writeVersion,
} from '../support/example-lab.js';
import { waitUntil } from '../support/wait-until.js';

export { LINUX, sleep, WINDOWS };

export type NodeJson = NodeStatus & { history?: { state: string; event?: string; detail?: string }[]; reports?: unknown[] };

export class E2eCluster {
  daemon?: ChildProcess;
  url = '';
  log = '';
  #deliveries = 0;

  private constructor(
    readonly lab: Lab,
    readonly dir: string,
    readonly repo: ExampleRepo,
    readonly config: string,
    readonly secret: string,
    readonly tokenFile: string,
  ) {}

  static async start(): Promise<E2eCluster> {
    // A CentOS 7 era host: docker-compose v1 only.
    const lab = await Lab.start({ hosts: exampleHosts({ 'compute-l2': { linux: { profile: 'centos-7' } } }), rebootMs: 1500 });
    const dir = mkdtempSync(join(tmpdir(), 'gc-e2e-'));
    try {
      const repo = exampleRepo(dir, lab);
      const secret = randomBytes(16).toString('hex');
      mkdirSync(join(dir, 'etc'));
      writeFileSync(join(dir, 'etc', 'webhook-secret'), secret);
      const tokenFile = join(dir, 'etc', 'api-token');
      writeFileSync(tokenFile, randomBytes(16).toString('hex'));
      const config = join(dir, 'etc', 'groundcrew.yaml');
      writeFileSync(
        config,
        `source:
  url: ${repo.origin}
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
reboot: { timeout: 120s, settle: 300ms, poll: 400ms }
log: { level: info }
`,
      );
      repo.commit('the example inventory, on the lab');
      return new E2eCluster(lab, dir, repo, config, secret, tokenFile);
    } catch (err) {
      await lab.stop();
      rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  get work(): string {
    return this.repo.work;
  }

  git(...args: string[]): string {
    return this.repo.git(...args);
  }

  head(): string {
    return this.git('rev-parse', 'HEAD');
  }

  /** The daemon as systemd would run it; resolves once it serves. */
  async startDaemon(): Promise<void> {
    const start = this.log.length;
    this.daemon = spawnDaemon(this.config, (text) => {
      this.log += text;
    });
    this.url = await servingUrl(this.daemon, () => this.log.slice(start), 'the daemon');
  }

  async kill9(): Promise<void> {
    if (this.daemon) await stopProcess(this.daemon, 'SIGKILL');
  }

  async stopDaemon(): Promise<number | null> {
    return this.daemon ? stopProcess(this.daemon, 'SIGTERM') : null;
  }

  /** Signs a GitHub push hook for the current head, the way GitHub would. */
  async hook(overrides: { secret?: string; delivery?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    const body = overrides.body ?? JSON.stringify({ ref: 'refs/heads/main', after: this.head() });
    return fetch(`${this.url}/hooks/github`, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'push',
        'x-github-delivery': overrides.delivery ?? `delivery-${++this.#deliveries}`,
        'x-hub-signature-256': signature(overrides.secret ?? this.secret, body),
        ...overrides.headers,
      },
    });
  }

  /** Commit what the callback changed, push, and send the webhook; returns the new head. */
  async push(message: string, change: () => void): Promise<string> {
    change();
    this.repo.commit(message);
    const res = await this.hook();
    if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
    return this.head();
  }

  edit(file: string, change: (text: string) => string): void {
    const path = join(this.work, file);
    writeFileSync(path, change(readFileSync(path, 'utf8')));
  }

  setVersion(node: string, version: string, mode = 'autocorrect'): void {
    writeVersion(this.work, node, version, mode);
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

  revisions(): Promise<IntakeVerdict[]> {
    return this.api<IntakeVerdict[]>('/api/revisions');
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
  async waitFor(what: string, check: (nodes: NodeJson[]) => boolean, timeoutMs = 600_000): Promise<NodeJson[]> {
    let nodes: NodeJson[] = [];
    return waitUntil(
      () => `${what}:\n${describeNodes(nodes)}`,
      async () => {
        nodes = await this.nodes();
        return nodes.length > 0 && check(nodes) && nodes;
      },
      { timeoutMs, intervalMs: 100 },
    );
  }

  /** Every listed node verified at its desired revision, with `sha` the revision in force. */
  async converged(sha: string, names = [...LINUX, ...WINDOWS], timeoutMs = 600_000): Promise<NodeJson[]> {
    await waitUntil(`revision ${sha} to arrive`, async () => (await this.revisions())[0]?.sha === sha, { timeoutMs });
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
    try {
      await this.kill9();
    } finally {
      await this.lab.stop();
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
