// Many simulated nodes behind one reconciler: converge time with per-command latency, the daemon's peak RSS and
// event-loop delay, /api/nodes over real HTTP, then a commit that changes one node: revision to that node's
// first command, and proof by counts that no other node did any work. The simulated hosts run in a process of
// their own (sim/transports/host-worker.ts) unless GC_BENCH_SCALE_SIM=inline, so the figures are the daemon's.

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { tuneDaemonHeap } from '../src/cli/daemon-heap.js';
import { SimCluster } from '../src/cli/sim-cluster.js';
import { type SimExecutor, SimShells, type SocketSimExecutor } from '../src/dataplane/sim-executor.js';
import { parseInventory } from '../src/inventory/parse-inventory.js';
import { ParseMemo } from '../src/inventory/parse-memo.js';
import { Reconciler } from '../src/reconciler/reconciler.js';
import { StatusStore } from '../src/reconciler/status-store.js';
import { HostProcess } from '../src/sim/transports/host-process.js';
import { listenOnLoopback, statusServer } from '../test/support/status-server.js';
import { bigInventory } from './inventory-parse.js';
import { median, type Spread, spread } from './stats.js';

export interface ScaleResult {
  nodes: number;
  /** Node machines running at once (the reconciler's run window; 0: all). */
  runWindow: number;
  windows: number;
  latencyMsPerCommand: number;
  convergeSeconds: number;
  commands: number;
  peakRssMiB: number;
  /** The peak while the nodes converged, before the /api/nodes requests and one-node commits that follow. */
  convergePeakRssMiB: number;
  /** V8's heap at the RSS peak's sample, reserved and in use: how much of the peak is heap grown into. */
  peakHeapTotalMiB: number;
  peakHeapUsedMiB: number;
  /** Outside V8's heap at the RSS peak's sample: buffers (external) and what is left (native, code, allocator). */
  peakExternalMiB: number;
  /**
   * The most heap in use just after any full collection of the converge: an upper bound of the live heap at
   * its largest (what a heap limit must leave room for), and V8's limit in this process (the daemon's flags).
   */
  maxHeapAfterFullGcMiB: number;
  heapLimitMiB: number;
  /** The NODE_OPTIONS this process ran with (bench/run.ts gives it the shipped systemd unit's). */
  nodeOptions: string;
  fullGcs: number;
  heapGrowingPercent: number;
  /** CPU time of this process (the daemon) over the converge, user and system. */
  convergeCpuSeconds: number;
  rssPerNodeKiB: number;
  /** After the converge, once the garbage is collected: what the process holds for the settled cluster. */
  settledRssMiB: number;
  settledHeapMiB: number;
  settledHeapTotalMiB: number;
  eventLoopDelayP99Ms: number;
  /** Where the simulated hosts ran: `process` (their own) or `inline` (this one, as before issue 18). */
  sim: 'process' | 'inline';
  /** The simulated hosts' process at its peak (0 when inline). */
  simPeakRssMiB: number;
  apiNodesMedianMs: number;
  apiNodesSpread: Spread;
  apiNodesBytes: number;
  /** Medians over ONE_NODE_COMMITS one-node commits, with their spreads. */
  oneNodeParseMs: number;
  revisionToFirstCommandMs: number;
  oneNodeParseSpread: Spread;
  revisionToFirstCommandSpread: Spread;
  otherNodesCommands: number;
}

const ONE_NODE_COMMITS = 9;

/** A full collection, without --expose-gc on the command line (tsx runs the benchmarks). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  gc();
  gc();
}

export async function runScale(nodes: number, latencyMs = 5): Promise<ScaleResult> {
  // This process is the daemon: its heap is tuned as `groundcrew run` tunes it (the same variable overrides).
  const heapGrowingPercent = tuneDaemonHeap(process.env.GROUNDCREW_HEAP_GROWING_PERCENT);
  const text = bigInventory(nodes - 1);
  // The daemon's intake keeps the last revision's parse: a one-node commit re-derives that node only.
  const memo = new ParseMemo();
  const parse = (version?: string) => {
    const result = parseInventory(
      {
        instances: { path: 'instances.yaml', text },
        nodeFiles: version ? [{ path: 'nodes/node-1.yaml', text: `versions:\n  contrail: "${version}"\n` }] : [],
        repoFile: { path: 'groundcrew.yaml', text: 'rollout:\n  maxUnavailable: "100%"\n' },
      },
      memo,
    );
    if (!result.ok) throw new Error(`benchmark inventory is invalid: ${result.errors[0]?.message}`);
    return result.state;
  };
  const baseline = process.memoryUsage().rss;
  const state = parse();
  const inline = process.env.GC_BENCH_SCALE_SIM === 'inline';
  // The daemon's V8 flags are this process's; the hosts' process must not inherit its heap limit.
  const nodeOptions = process.env.NODE_OPTIONS ?? '';
  delete process.env.NODE_OPTIONS;
  const hosts = inline ? undefined : await HostProcess.start({ socketDir: tmpdir(), rebootMs: 500 });
  const sim = new SimCluster({ ...(hosts ? { process: hosts } : { shells: await SimShells.create() }), rebootMs: 500, latencyMs });
  const executors: ReadonlyMap<string, SimExecutor | SocketSimExecutor> = hosts ? sim.remote : sim.executors;
  const status = new StatusStore();
  // GC_BENCH_RUN_WINDOW=N: the reconciler's run window (nodes running at once; 0: all), its default otherwise.
  const runWindow = process.env.GC_BENCH_RUN_WINDOW ? Number(process.env.GC_BENCH_RUN_WINDOW) : undefined;
  const reconciler = new Reconciler({
    status,
    access: (spec) => ({ exec: sim.executor(spec), poll: { initialMs: 200, maxMs: 1000 } }),
    limits: { settleMs: 100 },
    concurrency: 64,
    ...(runWindow !== undefined ? { runWindow } : {}),
  });
  const server = statusServer(status, {
    reconcile: (n) => reconciler.request(n),
    plan: (n) => reconciler.plan(n),
  });
  const url = `${await listenOnLoopback(server)}/api/nodes`;

  let peak = 0;
  let convergePeak: number | undefined;
  let peakHeap = { total: 0, used: 0, external: 0 };
  let simPeak = 0;
  // GC_BENCH_MEM_TRACE=FILE: process.memoryUsage() once a second over the converge, as JSON lines (where the RSS goes).
  const traceFile = process.env.GC_BENCH_MEM_TRACE;
  const trace: string[] = [];
  let ticks = 0;
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    if (m.rss > peak) [peak, peakHeap] = [m.rss, { total: m.heapTotal, used: m.heapUsed, external: m.external }];
    if (traceFile && ticks++ % 10 === 0) trace.push(JSON.stringify({ t: Math.round(performance.now()), ...m }));
    simPeak = Math.max(simPeak, hosts?.rss() ?? 0);
  }, 100);
  let maxAfterFullGc = 0;
  let fullGcs = 0;
  const gcWatch = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      fullGcs++;
      maxAfterFullGc = Math.max(maxAfterFullGc, process.memoryUsage().heapUsed);
    }
  });
  gcWatch.observe({ entryTypes: ['gc'] });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // GC_BENCH_CPU_PROFILE=FILE: a CPU profile of this process during the converge (.cpuprofile, for the
  // event-loop delay: which functions hold the loop). It slows the converge, so its figures are not the run's.
  const profileFile = process.env.GC_BENCH_CPU_PROFILE;
  const profiler = profileFile ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
  }
  try {
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    reconciler.apply({ sha: 'r1', state });
    // Polled, then reconciler.settled() once every node says verified: settled() looks at every node on each
    // status change, which at 10,000 nodes is the benchmark's own load on the loop (the daemon never calls it).
    // By name: status.list() sorts 10,000 names with localeCompare (35 to 67 ms a call, measured here while loaded).
    const still = new Set(['verified', 'stalled', 'unreachable', 'paused']);
    const names = state.nodes.map((n) => n.name);
    // GC_BENCH_MID_SNAPSHOT=FILE: once half the nodes have settled, a full collection and a heap snapshot: what is
    // live in the middle of the converge (the peak's heap is mostly garbage not yet collected). Off by default:
    // it stops the loop for seconds.
    const midSnapshot = process.env.GC_BENCH_MID_SNAPSHOT;
    let midLiveHeap: number | undefined;
    for (;;) {
      const unsettled = names.filter((n) => !still.has(status.get(n)?.state ?? '')).length;
      if (unsettled === 0) break;
      if (midSnapshot && midLiveHeap === undefined && unsettled <= names.length / 2) {
        collectGarbage();
        midLiveHeap = process.memoryUsage().heapUsed;
        writeHeapSnapshot(midSnapshot);
        console.log(`scale: half the nodes settled: live heap ${Math.round(midLiveHeap / 1048576)} MiB, snapshot ${midSnapshot}`);
      }
      await sleep(500);
    }
    await reconciler.settled();
    const convergeSeconds = (performance.now() - started) / 1000;
    convergePeak = peak;
    const cpu = process.cpuUsage(cpuAtStart);
    const convergeCpuSeconds = (cpu.user + cpu.system) / 1e6;
    delay.disable();
    gcWatch.disconnect();
    if (profiler && profileFile) {
      const { profile } = await profiler.post('Profiler.stop');
      writeFileSync(profileFile, JSON.stringify(profile));
      profiler.disconnect();
    }
    const states = new Set(status.list().map((n) => n.state));
    if (states.size !== 1 || !states.has('verified')) throw new Error(`not all verified: ${[...states].join(', ')}`);
    let commands = 0;
    for (const e of executors.values()) commands += e.stats.commands;

    collectGarbage();
    const settledRss = process.memoryUsage().rss;
    const { heapUsed: settledHeap, heapTotal: settledHeapTotal } = process.memoryUsage();

    const apiTimes: number[] = [];
    let apiNodesBytes = 0;
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      // The body is counted as it arrives, not kept: this client shares the daemon's process, and what it
      // holds is not the daemon's memory.
      const response = await fetch(url);
      let bytes = 0;
      const reader = response.body?.getReader();
      for (let read = await reader?.read(); read && !read.done; read = await reader?.read()) bytes += read.value.byteLength;
      apiTimes.push(performance.now() - t);
      apiNodesBytes = bytes;
    }

    // One-node commits: node-1's version bumped and back, ONE_NODE_COMMITS times. Each: the parse, and the
    // revision (parsed) to its first command; nobody else works. The first pays for code not yet optimized (a
    // daemon's first commit after a start does too), so the median is the figure, with the spread beside it.
    const target = executors.get('node-1');
    if (!target) throw new Error('no node-1');
    const before = new Map([...executors].map(([n, e]) => [n, e.stats.commands]));
    const run = target.run.bind(target);
    let first: ((at: number) => void) | undefined;
    target.run = (...args) => {
      first?.(performance.now());
      first = undefined;
      return run(...args);
    };
    const parseTimes: number[] = [];
    const firstCommandTimes: number[] = [];
    for (let i = 0; i < ONE_NODE_COMMITS; i++) {
      const parseStarted = performance.now();
      const next = parse(i % 2 === 0 ? '5.0.2' : '5.0.1');
      parseTimes.push(performance.now() - parseStarted);
      const reached = new Promise<number>((resolve) => {
        first = resolve;
      });
      const done = reconciler.settled();
      const revisionAt = performance.now();
      reconciler.apply({ sha: `r${i + 2}`, state: next });
      firstCommandTimes.push((await reached) - revisionAt);
      await done;
    }
    const oneNodeParseMs = median(parseTimes);
    const revisionToFirstCommandMs = median(firstCommandTimes);
    let otherNodesCommands = 0;
    for (const [n, e] of executors) if (n !== 'node-1') otherNodesCommands += e.stats.commands - (before.get(n) ?? 0);
    // GC_BENCH_HEAP_SNAPSHOT=FILE: the settled daemon's heap, for bench/heap-breakdown.ts (by constructor).
    const snapshot = process.env.GC_BENCH_HEAP_SNAPSHOT;
    if (snapshot) {
      collectGarbage();
      writeHeapSnapshot(snapshot);
    }

    return {
      nodes,
      runWindow: runWindow ?? 4 * 64,
      windows: state.nodes.filter((n) => n.os === 'windows').length,
      latencyMsPerCommand: latencyMs,
      convergeSeconds,
      commands,
      peakRssMiB: Math.round(peak / 1048576),
      convergePeakRssMiB: Math.round((convergePeak ?? peak) / 1048576),
      peakHeapTotalMiB: Math.round(peakHeap.total / 1048576),
      peakHeapUsedMiB: Math.round(peakHeap.used / 1048576),
      peakExternalMiB: Math.round(peakHeap.external / 1048576),
      maxHeapAfterFullGcMiB: Math.round(maxAfterFullGc / 1048576),
      heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 1048576),
      nodeOptions,
      fullGcs,
      heapGrowingPercent,
      convergeCpuSeconds,
      rssPerNodeKiB: Math.round((peak - baseline) / 1024 / nodes),
      settledRssMiB: Math.round(settledRss / 1048576),
      settledHeapMiB: Math.round(settledHeap / 1048576),
      settledHeapTotalMiB: Math.round(settledHeapTotal / 1048576),
      eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
      sim: hosts ? 'process' : 'inline',
      simPeakRssMiB: Math.round(simPeak / 1048576),
      apiNodesMedianMs: median(apiTimes),
      apiNodesSpread: spread(apiTimes),
      apiNodesBytes,
      oneNodeParseMs,
      revisionToFirstCommandMs,
      oneNodeParseSpread: spread(parseTimes),
      revisionToFirstCommandSpread: spread(firstCommandTimes),
      otherNodesCommands,
    };
  } finally {
    clearInterval(sampler);
    gcWatch.disconnect();
    if (traceFile) writeFileSync(traceFile, `${trace.join('\n')}\n`);
    await server.close();
    await reconciler.stop();
    hosts?.stop();
  }
}
