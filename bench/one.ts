// One benchmark in a process of its own (bench/run.ts starts one per benchmark, so one's heap never slows the
// next): its summary lines, with the spread of its samples, and bench-results/<name>.json.
// Usage: tsx bench/one.ts NAME; GC_BENCH_SCALE_NODES sets the scale benchmark's size, GC_BENCH_HA_NODES ha-scale's.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { showSpread } from './stats.js';
import { BENCHMARKS } from './targets.js';

// Each benchmark's module is imported when it runs: the scale benchmark's process is the daemon whose memory it
// measures, and must not hold what the others load (Playwright, etcd's client).

mkdirSync('bench-results', { recursive: true });
const name = process.argv[2] ?? '';
const wanted = (benchmark: string) => benchmark === name;
const save = (name: string, result: unknown) => writeFileSync(`bench-results/${name}.json`, `${JSON.stringify(result, null, 2)}\n`);
const ms = (v: number) => `${v.toFixed(1)} ms`;

if (wanted('inventory-parse')) {
  const r = (await import('./inventory-parse.js')).runInventoryParse();
  console.log(
    `inventory-parse: ${r.nodes} nodes (${(r.bytes / 1048576).toFixed(2)} MiB): median ${ms(r.medianMs)}, p90 ${ms(r.p90Ms)} over ${r.runs} runs`,
  );
  console.log(`inventory-parse: spread ${showSpread(r.spread)}`);
  console.log(`inventory-parse: one node file changed, with the last revision's memo: ${showSpread(r.incrementalSpread)}`);
  save('inventory-parse', r);
}

if (wanted('webhook-latency')) {
  const r = await (await import('./webhook-latency.js')).runWebhookLatency(200);
  console.log(
    `webhook-latency: ${r.rounds} signed pushes, webhook -> first command on the node: p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)}, max ${ms(r.maxMs)}`,
  );
  console.log(`webhook-latency: spread ${showSpread(r.spread)}`);
  console.log(`webhook-latency: commands on the other nodes meanwhile: ${r.otherNodesCommands}`);
  for (const [stage, sp] of Object.entries(r.stages)) console.log(`webhook-latency: stage ${stage}: ${showSpread(sp)}`);
  for (const row of r.slowest)
    console.log(
      `webhook-latency: slow round ${Object.entries(row)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')} ms`,
    );
  save('webhook-latency', r);
}

if (wanted('windows-converge')) {
  if (process.getuid?.() !== 0) console.log('windows-converge: skipped: needs root (the lab)');
  else save('windows-converge', await (await import('./windows-converge.js')).runWindowsConverge(Number(process.env.GC_BENCH_PAIRS) || 1));
}

if (wanted('noop-vs-ansible') || wanted('first-converge')) {
  const root = process.getuid?.() === 0;
  let ansible = false;
  try {
    execFileSync('ansible-playbook', ['--version'], { stdio: 'ignore' });
    ansible = true;
  } catch {}
  if (!root || !ansible) {
    console.log(
      `noop-vs-ansible, first-converge: skipped: need ${root ? '' : 'root (the lab) '}${ansible ? '' : 'ansible-core (apt-get install ansible-core)'}`,
    );
  } else {
    if (wanted('noop-vs-ansible')) {
      const r = await (await import('./noop-vs-ansible.js')).runNoopVsAnsible(20, 5);
      console.log(`noop-vs-ansible: ${r.hosts} converged Linux hosts over SSH, ${r.pairs.length} alternating pairs`);
      console.log(
        `noop-vs-ansible: groundcrew median ${ms(r.medianGroundcrewMs)} (CPU ${ms(r.medianGroundcrewCpuMs)}), ansible-playbook median ${ms(r.medianAnsibleMs)} (CPU ${ms(r.medianAnsibleCpuMs)}): ${r.medianRatio.toFixed(1)}x`,
      );
      console.log(`noop-vs-ansible: groundcrew ${showSpread(r.spread.groundcrewMs)}; ansible-playbook ${showSpread(r.spread.ansibleMs)}`);
      const f = r.floor;
      console.log(
        `noop-vs-ansible: floor (${f.floorReads} reads by builtins, ${f.floorForks} forks, one round trip per host): ${showSpread(f.floorMs)}; groundcrew beside it ${showSpread(f.groundcrewMs)}; groundcrew / floor ${showSpread(f.ratio, 'x')}`,
      );
      console.log(
        `noop-vs-ansible: floor with the ${f.withTools.commands.length} commands no builtin replaces (${f.withTools.forks} forks: ${f.withTools.commands.map((c) => c.split(' ').slice(0, 2).join(' ')).join(', ')}): ${showSpread(f.withTools.ms)}; groundcrew / it ${showSpread(f.withTools.ratio, 'x')}`,
      );
      console.log(
        `noop-vs-ansible: floor with only the real tools (${f.withRealTools.commands.map((c) => c.split(' ').slice(0, 2).join(' ')).join(', ')}; no docker shim): ${showSpread(f.withRealTools.ms)}; groundcrew / it ${showSpread(f.withRealTools.ratio, 'x')}`,
      );
      const execs = Object.entries(f.perHost.execs)
        .sort((a, b) => b[1] - a[1])
        .map(([n, c]) => `${n} ${c}`)
        .join(', ');
      console.log(`noop-vs-ansible: the facts script forks ${f.perHost.forks} times per host per re-verify; it runs ${execs}`);
      save('noop-vs-ansible', r);
    }
    if (wanted('first-converge')) {
      const f = await (await import('./first-converge.js')).runFirstConverge(20, 3);
      console.log(`first-converge: ${f.hosts} fresh Linux hosts, ${f.pairs.length} alternating pairs, each on fresh hosts`);
      console.log(
        `first-converge: groundcrew median ${ms(f.medianGroundcrewMs)}, ansible-playbook median ${ms(f.medianAnsibleMs)}: ${f.medianRatio.toFixed(1)}x`,
      );
      save('first-converge', f);
    }
  }
}

if (wanted('cli-start')) {
  const r = await (await import('./cli-start.js')).runCliStart(Number(process.env.GC_BENCH_CLI_RUNS ?? 20));
  console.log(`cli-start: CPU (user+sys) of each command, ${r.runs} runs each, alternated, against a running demo daemon`);
  console.log(`cli-start: groundcrew --help ${showSpread(r.helpCpuMs)}`);
  console.log(`cli-start: groundcrew status ${showSpread(r.statusCpuMs)}`);
  console.log(`cli-start: status / --help, medians: ${r.ratio.toFixed(2)}x`);
  if (r.base) console.log(`cli-start: ${r.base.bin} status ${showSpread(r.base.statusCpuMs)} (${r.base.ratio.toFixed(2)}x --help)`);
  save('cli-start', r);
}

if (wanted('status-page')) {
  const r = await (await import('./status-page.js')).runStatusPage(Number(process.env.GC_BENCH_STATUS_NODES ?? 10_000));
  console.log(
    `status-page: ${r.nodes} node records (${r.stalled} stalled), Chromium ${r.chromium} headless, ${r.rounds} rounds, each load in a fresh context`,
  );
  for (const [what, p] of [
    ['/', r.overview],
    ['/?state=stalled', r.filter],
    ['/?q=node-01234', r.search],
  ] as const) {
    console.log(`status-page: ${what} (${(p.bytes / 1024).toFixed(0)} KiB, ${p.rows} rows) first paint ${showSpread(p.firstPaintMs)}`);
    console.log(
      `status-page: ${what} first contentful paint ${showSpread(p.firstContentfulPaintMs)}; DOMContentLoaded ${showSpread(p.domContentLoadedMs)}`,
    );
  }
  console.log(`status-page: filter in place (click on the stalled count to its rows) ${showSpread(r.filterInPlaceMs)}`);
  console.log(`status-page: search in place (Enter to the one row) ${showSpread(r.searchInPlaceMs)}`);
  console.log(`status-page: GET /api/nodes (${(r.apiNodesBytes / 1024).toFixed(0)} KiB) ${showSpread(r.apiNodesMs)}`);
  save('status-page', r);
}

if (wanted('scale')) {
  const r = await (await import('./scale.js')).runScale(Number(process.env.GC_BENCH_SCALE_NODES ?? 10_000));
  console.log(
    `scale: ${r.nodes} simulated nodes (${r.windows} Windows), ${r.latencyMsPerCommand} ms per command, ${r.runWindow || 'all'} running at once: converged in ${r.convergeSeconds.toFixed(1)} s (${r.commands} commands)`,
  );
  console.log(
    `scale: peak RSS ${r.peakRssMiB} MiB (${r.rssPerNodeKiB} KiB per node; ${r.convergePeakRssMiB} MiB while converging, the rest after: /api/nodes, one-node commits), event-loop delay p99 ${ms(r.eventLoopDelayP99Ms)}`,
  );
  console.log(
    `scale: at the RSS peak V8's heap was ${r.peakHeapTotalMiB} MiB reserved, ${r.peakHeapUsedMiB} MiB in use, ${r.peakExternalMiB} MiB external`,
  );
  console.log(
    `scale: heap growing percent ${r.heapGrowingPercent}, V8 flags "${r.nodeOptions}": heap limit ${r.heapLimitMiB} MiB; most heap in use after a full collection (${r.fullGcs} of them) ${r.maxHeapAfterFullGcMiB} MiB; CPU over the converge ${r.convergeCpuSeconds.toFixed(1)} s`,
  );
  console.log(
    `scale: simulated hosts ${r.sim === 'process' ? `in a process of their own (peak RSS ${r.simPeakRssMiB} MiB), not counted above` : 'in this process, counted above'}`,
  );
  console.log(
    `scale: settled (after a full GC): RSS ${r.settledRssMiB} MiB, heap ${r.settledHeapMiB} MiB in use of ${r.settledHeapTotalMiB} MiB`,
  );
  console.log(
    `scale: GET /api/nodes median ${ms(r.apiNodesMedianMs)} (${(r.apiNodesBytes / 1024).toFixed(0)} KiB), ${showSpread(r.apiNodesSpread)}`,
  );
  console.log(
    `scale: one node changed (median of ${r.oneNodeParseSpread.n} commits): parse ${ms(r.oneNodeParseMs)}, revision -> its first command ${ms(r.revisionToFirstCommandMs)}, commands on other nodes ${r.otherNodesCommands}`,
  );
  console.log(
    `scale: one-node commit parse ${showSpread(r.oneNodeParseSpread)}; revision -> first command ${showSpread(r.revisionToFirstCommandSpread)}`,
  );
  save('scale', r);
  const snapshot = process.env.GC_BENCH_HEAP_SNAPSHOT;
  if (snapshot) {
    const { heapBreakdown, showBreakdown } = await import('./heap-breakdown.js');
    const lines = showBreakdown(await heapBreakdown(snapshot), 30);
    writeFileSync('bench-results/scale-heap.txt', `${lines.join('\n')}\n`);
    for (const line of lines) console.log(`scale: heap ${line}`);
  }
}

if (wanted('ha-scale')) {
  // GC_BENCH_HA_NODES (10,000), GC_BENCH_HA_ROUNDS (converge rounds per member count, 1), GC_BENCH_HA_FAILOVERS (3).
  const env = (key: string, fallback: number) => Number(process.env[key] ?? fallback);
  const dir = mkdtempSync(join(tmpdir(), 'gc-ha-scale-'));
  const r = await (await import('./ha-scale.js')).runHaScale(
    env('GC_BENCH_HA_NODES', 10_000),
    env('GC_BENCH_HA_ROUNDS', 1),
    env('GC_BENCH_HA_FAILOVERS', 3),
    dir,
  );
  const s = (v: number) => `${v.toFixed(1)} s`;
  console.log(
    `ha-scale: ${r.nodes} simulated nodes (${r.windows} Windows), ${r.latencyMsPerCommand} ms per command, ${r.workersPerMember} workers per member, lease TTL ${r.leaseTtlMs / 1000} s, a three-member etcd on loopback`,
  );
  for (const c of r.converge) {
    const waits = Object.entries(c.notReady)
      .filter(([, w]) => w.notReady > 0 || (w.noAnswer ?? 0) > 0)
      .map(
        ([m, w]) =>
          `${m} not ready in ${w.notReady} and silent (2 s) in ${w.noAnswer ?? 0} of ${w.samples} looks (last reason: ${w.lastReason})`,
      );
    if (c.failure) {
      console.log(`ha-scale: ${c.members} member(s): did NOT converge: ${c.failure}; ${waits.join('; ')}`);
      for (const [m, lines] of Object.entries(c.logTails ?? {}))
        for (const line of lines) console.log(`ha-scale:   ${m}: ${line.slice(0, 300)}`);
    } else if (waits.length > 0) console.log(`ha-scale: ${c.members} member(s): ${waits.join('; ')}`);
    const each = (record: Record<string, number>) =>
      Object.entries(record)
        .map(([m, v]) => `${m} ${v}`)
        .join(' / ');
    console.log(
      `ha-scale: ${c.members} member(s): ${c.failure ? 'not converged' : `converged in ${s(c.seconds)}`}; nodes ${each(c.shares)}; peak RSS ${each(c.peakRssMiB)} MiB, hosts' process ${c.hostsPeakRssMiB} MiB; etcd db ${c.etcdDbMiB} MiB; m1's /api/nodes counts ${c.apiVerifiedAtFirstMember} verified; load ${c.loadBefore} -> ${c.loadAfter}`,
    );
  }
  for (const [members, sp] of Object.entries(r.convergeSpread))
    console.log(`ha-scale: converge, ${members} member(s): ${showSpread(sp, 's')}`);
  console.log(`ha-scale: one member's median / three members' median: ${r.speedupThreeOverOne.toFixed(2)}x`);
  for (const f of r.failover)
    console.log(
      `ha-scale: failover: ${f.killed}${f.leader === f.killed ? ' (the leader)' : ''} killed (owned ${f.orphaned} nodes) on ${f.node}'s second command; ${f.newOwner}'s first command to it after ${ms(f.firstCommandMs)}, verified after ${ms(f.verifiedMs)}; the commit converged ${s(f.commitConvergedSeconds)} after its push; rebalanced ${s(f.rebalanceSeconds)} after ${f.killed} restarted; load ${f.load}`,
    );
  if (r.failoverFailure)
    console.log(`ha-scale: failover round ${r.failover.length + 1} did not finish (see above); ${r.failover.length} did`);
  if (r.failover.length > 0) {
    console.log(`ha-scale: failover, killed -> next command from the new owner: ${showSpread(r.firstCommandSpread)}`);
    console.log(`ha-scale: failover, killed -> node verified: ${showSpread(r.verifiedSpread)}`);
  }
  save('ha-scale', r);
  rmSync(dir, { recursive: true, force: true });
}

if (!BENCHMARKS.includes(name)) {
  console.error(`bench/one.ts: no benchmark "${name}" (one of ${BENCHMARKS.join(', ')})`);
  process.exitCode = 2;
}
