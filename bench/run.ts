// `npm run bench`: every benchmark, each in a process of its own (one's heap never slows the next; the scale
// benchmark's once slowed the SSH ones after it to 11.3x from 22.8x), then every target with met or not met.
// GC_BENCH_ONLY=name[,name] runs some; GC_BENCH_SCALE_NODES sets the scale benchmark's size, GC_BENCH_HA_NODES ha-scale's.

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BENCHMARKS, targetLines } from './targets.js';

const only = process.env.GC_BENCH_ONLY?.split(',');
const names = BENCHMARKS.filter((n) => !only || only.includes(n));
const tsx = join(import.meta.dirname, '..', 'node_modules', '.bin', 'tsx');

// GC_BENCH_SCALE_NODE_OPTIONS: V8 flags for the scale benchmark's process alone (the daemon's), to try some.
const scaleNodeOptions = process.env.GC_BENCH_SCALE_NODE_OPTIONS;

const results = new Map<string, Record<string, unknown>>();
let failed = 0;
for (const name of names) {
  const file = join('bench-results', `${name}.json`);
  // A result left by an earlier run must not pass for this one's.
  rmSync(file, { force: true });
  const env = name === 'scale' && scaleNodeOptions ? { ...process.env, NODE_OPTIONS: scaleNodeOptions } : process.env;
  const run = spawnSync(tsx, [join(import.meta.dirname, 'one.ts'), name], { stdio: 'inherit', env });
  if (run.status !== 0) {
    console.log(`${name}: failed (exit ${run.status ?? run.signal})`);
    failed++;
  }
  if (existsSync(file)) results.set(name, JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
}
console.log('\ntargets:');
for (const line of targetLines(results)) console.log(line);
if (failed > 0) process.exitCode = 1;
