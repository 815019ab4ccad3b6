// The example inventory on the lab, as an operator keeps it: the lab's six hosts under the example's names, a
// bare Git remote and a work tree of inventory-repo-example with its addresses pointed at the lab's hosts, and
// the daemon (dist/) as a process that serves on a port of its choosing. The end-to-end stories
// (test/e2e/cluster.ts) and cluster mode (test/ha/ha-cluster.ts) both stand on it.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeStatus } from '../../src/reconciler/status-store.js';
import type { Lab, LabHostSpec } from '../lab/lab.js';
import { gitIn } from './git.js';
import { waitUntil } from './wait-until.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
export const LINUX = ['ctrl1', 'compute-l1', 'compute-l2'];
export const WINDOWS = ['win-compute-1', 'win-compute-2', 'win-compute-3'];
export const NODES = [...LINUX, ...WINDOWS];
/** The example inventory's addresses (inventory-repo-example/instances.yaml), replaced by the lab's. */
const EXAMPLE_ADDRESSES: Record<string, string> = {
  ctrl1: '192.0.2.10',
  'compute-l1': '192.0.2.21',
  'compute-l2': '192.0.2.22',
  'win-compute-1': '192.0.2.31',
  'win-compute-2': '192.0.2.32',
  'win-compute-3': '192.0.2.33',
};
const SERVES_MS = 30_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The example's hosts, as the lab makes them; `more` adds to a host's spec (a Linux profile, say). */
export function exampleHosts(more: Record<string, Partial<LabHostSpec>> = {}): LabHostSpec[] {
  const hosts: LabHostSpec[] = [
    // The external controller kolla-ansible and c-a-d deployed: the config API, Keystone with the example's password.
    { name: 'ctrl1', os: 'linux', linux: { configApi: true, keystone: { password: 'c0ntrail123' } } },
    { name: 'compute-l1', os: 'linux' },
    { name: 'compute-l2', os: 'linux' },
    // Windows Server 2016 and 2019, each under real pwsh in the lab with its build's cmdlets.
    { name: 'win-compute-1', os: 'windows', windows: { build: 14393 } },
    { name: 'win-compute-2', os: 'windows', windows: { build: 17763 } },
    // Prepared by hand and on the signed vRouter: nothing to reboot for. Its sessions run on the TypeScript
    // interpreter: the two hosts above already take each story through real pwsh, and every real pwsh session
    // is a process start (about a second of CPU here), so a third one would only add minutes.
    {
      name: 'win-compute-3',
      os: 'windows',
      windows: { features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } },
      engine: 'interpreter',
    },
  ];
  return hosts.map((h) => ({ ...h, ...more[h.name] }));
}

export interface ExampleRepo {
  origin: string;
  work: string;
  /** instances.yaml of the example, its addresses the lab's hosts' (also written to the work tree). */
  instances: string;
  git(...args: string[]): string;
  /** Commits all of the work tree and pushes; returns the new head. */
  commit(message: string): string;
}

/** A bare remote `dir/origin.git` and its work tree `dir/work` holding the example, nothing committed yet. */
export function exampleRepo(dir: string, lab: Lab): ExampleRepo {
  const origin = join(dir, 'origin.git');
  const work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', origin]);
  cpSync(join(ROOT, 'inventory-repo-example'), work, { recursive: true });
  let instances = readFileSync(join(work, 'instances.yaml'), 'utf8');
  for (const [node, address] of Object.entries(EXAMPLE_ADDRESSES))
    instances = instances.replace(new RegExp(`${address.replace(/\./g, '\\.')}(?!\\d)`, 'g'), lab.host(node).address);
  writeFileSync(join(work, 'instances.yaml'), instances);
  const git = gitIn(work);
  git('init', '-q', '--initial-branch=main');
  git('remote', 'add', 'origin', origin);
  return {
    origin,
    work,
    instances,
    git,
    commit(message) {
      git('add', '-A');
      git('commit', '-qm', message);
      git('push', '-q', 'origin', 'main');
      return git('rev-parse', 'HEAD');
    },
  };
}

/** Asks for `version` of Contrail on `node`: its file under nodes/ in the work tree. */
export function writeVersion(work: string, node: string, version: string, mode = 'autocorrect'): void {
  writeFileSync(join(work, 'nodes', `${node}.yaml`), `versions:\n  contrail: "${version}"\nmode: ${mode}\n`);
}

/** `groundcrew run` as systemd would run it; each piece of its output, as it comes, goes to `output`. */
export function spawnDaemon(config: string, output: (text: string) => void, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const proc = spawn(process.execPath, [BIN, 'run', '--config', config], { stdio: ['ignore', 'pipe', 'pipe'], env });
  proc.stdout?.on('data', (d: Buffer) => output(d.toString()));
  proc.stderr?.on('data', (d: Buffer) => output(d.toString()));
  return proc;
}

/** The URL a daemon serves on, once its log (`log()`, since it started) names it; an error if it exits or takes 30 s. */
export async function servingUrl(proc: ChildProcess, log: () => string, what: string): Promise<string> {
  const url = await waitUntil(
    () => `${what} to start:\n${log()}`,
    () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(log())?.[1] ?? (proc.exitCode !== null && 'exited'),
    { timeoutMs: SERVES_MS },
  );
  if (url === 'exited') throw new Error(`${what} exited (${proc.exitCode}) before it listened:\n${log()}`);
  return url;
}

/** Sends `signal` (SIGKILL, SIGTERM) to a process that still runs, and waits for its exit; its exit code. */
export async function stopProcess(proc: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
  const exited = new Promise<number | null>((resolve) => proc.once('exit', resolve));
  proc.kill(signal);
  return exited;
}

/** A webhook body's signature as GitHub and the generic hook send it: `sha256=` and the body's HMAC-SHA256. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** One line a node, for a failure's message: where each one stands and why. */
export function describeNodes(nodes: NodeStatus[]): string {
  return nodes.map((n) => `${n.name} ${n.state} ${n.phase ?? ''} ${n.waiting ?? ''} ${n.lastError?.message ?? ''}`).join('\n');
}
