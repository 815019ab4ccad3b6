// Webhook received → first command on the affected node: the daemon (in this process) follows a real bare
// repo; each round commits a version change for one node, pushes, sends a signed generic webhook and times
// the request until that node's executor receives its first command. Rounds wait for the cluster to settle.

import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { startDaemon } from '../src/cli/daemon.js';
import { DaemonConfigSchema } from '../src/cli/daemon-config.js';
import { SnapshotStore } from '../src/reconciler/snapshot-store.js';
import { percentile, type Spread, spread } from './stats.js';

export interface WebhookLatencyResult {
  rounds: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  spread: Spread;
  /** Commands other nodes received during the rounds: a change to one node must not touch the others. */
  otherNodesCommands: number;
  /**
   * Where each round's time went, from the daemon's own log lines (at info, as a daemon runs): request to the
   * route's `webhook: fetching now` (HTTP, signature), the fetch (`fetchMs` of `new head`: 0 when the ref and
   * objects were read straight from a local remote), the rest of `new head` (the ref and commit read), to
   * `revision accepted` (files read, parse), to the node's `new desired state` (the work queue), to its first
   * command; that last one split in two: to the command asking for the node's snapshot to be durable (the machine's
   * transitions), and from there to the command reaching the node (the snapshot's write and fsyncs).
   */
  stages: Record<Stage, Spread>;
  /** The slowest rounds (the p99's), their stages in ms. */
  slowest: ({ totalMs: number } & Record<Stage, number>)[];
}

const STAGES = ['http', 'fetch', 'read', 'intake', 'queue', 'machine', 'durable', 'command'] as const;
type Stage = (typeof STAGES)[number];

export async function runWebhookLatency(rounds = 200): Promise<WebhookLatencyResult> {
  const root = join(import.meta.dirname, '..');
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-hook-'));
  const origin = join(dir, 'origin.git');
  const work = join(dir, 'work');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@groundcrew.invalid', ...args], { cwd: work, encoding: 'utf8' });
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', origin]);
  cpSync(join(root, 'inventory-repo-example'), work, { recursive: true });
  git('init', '-q', '--initial-branch=main');
  git('remote', 'add', 'origin', origin);
  git('add', '.');
  git('commit', '-qm', 'example');
  git('push', '-q', 'origin', 'main');
  writeFileSync(join(dir, 'secret'), 'bench-secret');
  const config = DaemonConfigSchema.parse({
    source: { url: origin, pollInterval: '1h' },
    stateDir: join(dir, 'state'),
    listen: '127.0.0.1:0',
    webhooks: { generic: { secretFile: join(dir, 'secret') } },
    transport: 'sim',
    sim: { rebootSeconds: 0.1, latencyMs: 0 },
    reboot: { timeout: '30s', settle: '50ms', poll: '50ms' },
    resyncInterval: '1h',
  });
  // Log lines stamped on arrival (pino writes to an object stream synchronously, in the logging call).
  const marks = new Map<string, number>();
  let fetchMs = Number.NaN;
  const sink = {
    write(line: string) {
      const { msg = '', fetchMs: took } = JSON.parse(line) as { msg?: string; fetchMs?: number };
      if (msg === 'new head') fetchMs = took ?? Number.NaN;
      if (
        msg === 'webhook: fetching now' ||
        msg === 'new head' ||
        msg === 'revision accepted' ||
        (msg === 'new desired state' && line.includes('"compute-l1"'))
      )
        marks.set(msg, performance.now());
    },
  };
  // When the target's first command asks for its snapshot to be durable (durable-executor.ts).
  let flushAt = Number.NaN;
  const flush = SnapshotStore.prototype.flush;
  SnapshotStore.prototype.flush = function (this: SnapshotStore, node: string) {
    if (node === 'compute-l1' && Number.isNaN(flushAt)) flushAt = performance.now();
    return flush.call(this, node);
  };
  const daemon = await startDaemon(config, { log: pino({ level: 'info' }, sink) });
  try {
    await daemon.reconciler.settled();
    const target = 'compute-l1';
    const exec = daemon.sim?.executors.get(target);
    if (!exec) throw new Error('no simulated executor for the target node');
    let firstCommand: ((at: number) => void) | undefined;
    const run = exec.run.bind(exec);
    exec.run = (...args) => {
      firstCommand?.(performance.now());
      firstCommand = undefined;
      return run(...args);
    };
    const others = () =>
      [...(daemon.sim?.executors.entries() ?? [])].filter(([n]) => n !== target).reduce((sum, [, e]) => sum + e.stats.commands, 0);
    const othersBefore = others();
    const latencies: number[] = [];
    const rows: ({ totalMs: number } & Record<Stage, number>)[] = [];
    for (let i = 0; i < rounds; i++) {
      writeFileSync(join(work, 'nodes', `${target}.yaml`), `versions:\n  contrail: "${i % 2 === 0 ? '5.0.2' : '5.0.1'}"\n`);
      git('commit', '-qam', `round ${i}`);
      git('push', '-q', 'origin', 'main');
      const body = JSON.stringify({ ref: 'refs/heads/main', round: i });
      const signature = `sha256=${createHmac('sha256', 'bench-secret').update(body).digest('hex')}`;
      const started = performance.now();
      marks.clear();
      fetchMs = Number.NaN;
      flushAt = Number.NaN;
      const reached = new Promise<number>((resolve) => {
        firstCommand = resolve;
      });
      const res = await fetch(`${daemon.url}/hooks/generic`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'x-signature': signature, 'x-delivery-id': `round-${i}` },
      });
      if (res.status !== 202) throw new Error(`webhook answered ${res.status}`);
      const at = await reached;
      latencies.push(at - started);
      const routed = marks.get('webhook: fetching now') ?? Number.NaN;
      const head = marks.get('new head') ?? Number.NaN;
      const accepted = marks.get('revision accepted') ?? Number.NaN;
      const desired = marks.get('new desired state') ?? Number.NaN;
      rows.push({
        totalMs: at - started,
        http: routed - started,
        fetch: fetchMs,
        read: head - routed - fetchMs,
        intake: accepted - head,
        queue: desired - accepted,
        machine: flushAt - desired,
        durable: at - flushAt,
        command: at - desired,
      });
      await daemon.reconciler.settled();
    }
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      rounds,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.at(-1) ?? Number.NaN,
      spread: spread(latencies),
      otherNodesCommands: others() - othersBefore,
      stages: Object.fromEntries(STAGES.map((k) => [k, spread(rows.map((r) => r[k]))])) as Record<Stage, Spread>,
      slowest: [...rows].sort((a, b) => b.totalMs - a.totalMs).slice(0, Math.max(1, Math.ceil(rows.length / 50))),
    };
  } finally {
    SnapshotStore.prototype.flush = flush;
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
