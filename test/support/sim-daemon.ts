// The daemon as `groundcrew run` assembles it (cli/daemon.ts), in this process, on simulated hosts and a
// real Git remote of the example inventory: tests reach its simulated hosts (to break one) and its status.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { type Daemon, startDaemon } from '../../src/cli/daemon.js';
import { DaemonConfigSchema } from '../../src/cli/daemon-config.js';
import type { SimExecutor } from '../../src/dataplane/sim-executor.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { waitUntil } from './wait-until.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'inventory-repo-example');

export interface SimDaemon {
  daemon: Daemon;
  url: string;
  dir: string;
  /** Commits what `change` did in the work tree, pushes, and has the daemon look now; the new head. */
  push(message: string, change: () => void): Promise<string>;
  setVersion(node: string, version: string): void;
  windows(node: string): WindowsHost;
  /** Resolves when `check` holds (60 s by default); on a timeout, says every node's state. */
  until(what: string, check: () => boolean, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** `extra`: more of the daemon config (notifications, for one); `inventory`: the repo's files (the example's by default). */
export async function startSimDaemon(extra: Record<string, unknown> = {}, log?: Logger, inventory = EXAMPLE): Promise<SimDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-simd-'));
  const origin = join(dir, 'origin.git');
  const work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', origin]);
  cpSync(inventory, work, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Ada Operator', '-c', 'user.email=ada@groundcrew.invalid', ...args], {
      cwd: work,
      encoding: 'utf8',
    }).trim();
  git('init', '-q', '--initial-branch=main');
  git('remote', 'add', 'origin', origin);
  git('add', '.');
  git('commit', '-qm', 'the example inventory');
  git('push', '-q', 'origin', 'main');
  const config = DaemonConfigSchema.parse({
    source: { url: origin, branch: 'main', pollInterval: '1h' },
    stateDir: join(dir, 'state'),
    listen: '127.0.0.1:0',
    transport: 'sim',
    sim: { rebootSeconds: 0.05, latencyMs: 0 },
    reboot: { timeout: '20s', settle: '20ms', poll: '20ms' },
    resyncInterval: '1h',
    log: { level: 'warn' },
    ...extra,
  });
  const daemon = await startDaemon(config, { log: log ?? pino({ level: 'silent' }) });
  const states = () => daemon.status.list().map((n) => `${n.name} ${n.state} ${n.waiting ?? ''}`);
  const until = async (what: string, check: () => boolean, timeoutMs = 60_000) => {
    await waitUntil(() => `${what}:\n${states().join('\n')}`, check, { timeoutMs });
  };
  return {
    daemon,
    url: daemon.url,
    dir,
    async push(message, change) {
      change();
      git('add', '-A');
      git('commit', '-qm', message);
      git('push', '-q', 'origin', 'main');
      await daemon.source.trigger('test');
      return git('rev-parse', 'HEAD');
    },
    setVersion(node, version) {
      writeFileSync(join(work, 'nodes', `${node}.yaml`), `versions:\n  contrail: "${version}"\n`);
    },
    windows(node) {
      const exec = daemon.sim?.executors.get(node) as SimExecutor | undefined;
      if (!exec) throw new Error(`no simulated host for ${node}`);
      return exec.host as WindowsHost;
    },
    until,
    async stop() {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every node verified at its desired revision, with `sha` the revision in force. */
export function convergedAt(d: SimDaemon, sha: string): Promise<void> {
  return d.until(`every node verified at ${sha.slice(0, 12)}`, () => {
    const nodes = d.daemon.status.list();
    return (
      d.daemon.status.current()?.sha === sha &&
      nodes.length > 0 &&
      nodes.every((n) => n.state === 'verified' && n.lastAppliedRevision === n.desiredRevision)
    );
  });
}
