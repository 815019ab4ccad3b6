// One benchmark in a process of its own (bench/run.ts starts one per benchmark, so one's heap never slows the
// next): its summary lines, with the spread of its samples, and bench-results/<name>.json.
// Usage: tsx bench/one.ts NAME; GC_BENCH_SCALE_NODES sets the scale benchmark's size.

import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { runFirstConverge } from './first-converge.js';
import { heapBreakdown, showBreakdown } from './heap-breakdown.js';
import { runInventoryParse } from './inventory-parse.js';
import { runNoopVsAnsible } from './noop-vs-ansible.js';
import { runScale } from './scale.js';
import { showSpread } from './stats.js';
import { runStatusPage } from './status-page.js';
import { runWebhookLatency } from './webhook-latency.js';

mkdirSync('bench-results', { recursive: true });
const name = process.argv[2] ?? '';
const wanted = (benchmark: string) => benchmark === name;
const save = (name: string, result: unknown) => writeFileSync(`bench-results/${name}.json`, `${JSON.stringify(result, null, 2)}\n`);
const ms = (v: number) => `${v.toFixed(1)} ms`;

if (wanted('inventory-parse')) {
  const r = runInventoryParse();
  console.log(
    `inventory-parse: ${r.nodes} nodes (${(r.bytes / 1048576).toFixed(2)} MiB): median ${ms(r.medianMs)}, p90 ${ms(r.p90Ms)} over ${r.runs} runs`,
  );
  console.log(`inventory-parse: spread ${showSpread(r.spread)}`);
  console.log(`inventory-parse: one node file changed, with the last revision's memo: ${showSpread(r.incrementalSpread)}`);
  save('inventory-parse', r);
}

if (wanted('webhook-latency')) {
  const r = await runWebhookLatency(200);
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
      const r = await runNoopVsAnsible(20, 5);
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
      const f = await runFirstConverge(20, 3);
      console.log(`first-converge: ${f.hosts} fresh Linux hosts, ${f.pairs.length} alternating pairs, each on fresh hosts`);
      console.log(
        `first-converge: groundcrew median ${ms(f.medianGroundcrewMs)}, ansible-playbook median ${ms(f.medianAnsibleMs)}: ${f.medianRatio.toFixed(1)}x`,
      );
      save('first-converge', f);
    }
  }
}

if (wanted('status-page')) {
  const r = await runStatusPage(Number(process.env.GC_BENCH_STATUS_NODES ?? 10_000));
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
  const r = await runScale(Number(process.env.GC_BENCH_SCALE_NODES ?? 10_000));
  console.log(
    `scale: ${r.nodes} simulated nodes (${r.windows} Windows), ${r.latencyMsPerCommand} ms per command: converged in ${r.convergeSeconds.toFixed(1)} s (${r.commands} commands)`,
  );
  console.log(`scale: peak RSS ${r.peakRssMiB} MiB (${r.rssPerNodeKiB} KiB per node), event-loop delay p99 ${ms(r.eventLoopDelayP99Ms)}`);
  console.log(`scale: at the RSS peak V8's heap was ${r.peakHeapTotalMiB} MiB reserved, ${r.peakHeapUsedMiB} MiB in use`);
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
    const lines = showBreakdown(await heapBreakdown(snapshot), 30);
    writeFileSync('bench-results/scale-heap.txt', `${lines.join('\n')}\n`);
    for (const line of lines) console.log(`scale: heap ${line}`);
  }
}

const known = ['inventory-parse', 'webhook-latency', 'noop-vs-ansible', 'first-converge', 'status-page', 'scale'];
if (!known.includes(name)) {
  console.error(`bench/one.ts: no benchmark "${name}" (one of ${known.join(', ')})`);
  process.exitCode = 2;
}
