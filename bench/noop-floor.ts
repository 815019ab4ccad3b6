// The no-op floor of a re-verify (issue 18, docs/BENCHMARKS.md): one SSH round trip per host, over the same
// persistent connections, 20 hosts in parallel, running a script that does the facts script's file reads with
// bash builtins only (no process is started); beside it, the floor plus the commands no builtin can replace.
// And what groundcrew's facts script forks on a host, counted by running it once under strace on each host
// (clone/fork/vfork calls, and which programs are executed).

import { performance } from 'node:perf_hooks';
import type { Command, Executor, RunOptions } from '../src/dataplane/executor.js';
import { bashQuote } from '../src/dataplane/quote.js';
import type { DesiredState } from '../src/inventory/desired-state.js';
import { roleInput } from '../src/reconciler/role-input.js';
import { testPhases } from '../src/roles/phase.js';
import { planNode } from '../src/roles/plan.js';
import type { Spread } from './stats.js';

export interface ForkCount {
  /** Processes the facts script starts on one host in one re-verify (clone, fork and vfork calls). */
  forks: number;
  /** Programs it runs, by name, with how many times (the bash that runs the script is not counted). */
  execs: Record<string, number>;
  /** Files it opens (or tries to), outside the programs' own libraries and locales: what the floor reads. */
  paths: string[];
}

export interface FloorResult {
  /** What the facts script starts on one host per re-verify. */
  perHost: ForkCount;
  /** The floor script counted the same way: it must start nothing. */
  floorForks: number;
  /** Files the floor reads on each host. */
  floorReads: number;
  floorMs: Spread;
  /** groundcrew's re-verify in the same alternating runs. */
  groundcrewMs: Spread;
  /** groundcrew / floor, per pair. */
  ratio: Spread;
  /**
   * The floor plus the commands groundcrew's facts still run (docker, ip, stat: the `sh` facts), each once as
   * the facts script runs it: what a re-verify costs when only groundcrew's own work is taken away. On the
   * lab, `docker` is a shim answered by the simulator in the benchmark's process, so this holds its cost too.
   */
  withTools: { commands: string[]; forks: number; ms: Spread; ratio: Spread };
  /** The same without the lab's `docker` shim (the simulator's cost): the floor plus the real tools only. */
  withRealTools: { commands: string[]; ms: Spread; ratio: Spread };
}

/** The script testPhases sends to `node` for a re-verify (and its standard input), without running it. */
export async function factsScript(state: DesiredState, name: string, exec: Executor): Promise<{ script: string; stdin?: string }> {
  const node = state.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  let seen: { script: string; stdin?: string } | undefined;
  const recording: Executor = {
    os: exec.os,
    run: (cmd: Command, opts: RunOptions) => {
      seen = { script: cmd.script, ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}) };
      return exec.run(cmd, opts);
    },
    close: () => exec.close(),
  };
  await testPhases(recording, planNode(roleInput(state, node)).phases);
  if (!seen) throw new Error('testPhases sent no command');
  return seen;
}

/** Opens that are a program starting (its libraries, locale, terminal), not the facts it reads. */
const NOT_READS =
  /^(\/lib|\/usr\/lib|\/usr\/share\/locale|\/etc\/ld\.so|\/dev\/|\/proc\/self\/|\/etc\/nsswitch|\/etc\/passwd|\/etc\/group|\/tmp\/gc-forks)/;

/** Runs `script` on the host under strace and counts what it starts. */
export async function countForks(exec: Executor, script: string, stdin?: string): Promise<ForkCount> {
  const trace = `/tmp/gc-forks-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const wrapped = [
    `strace -f -qq -e trace=execve,clone,clone3,fork,vfork,openat -o ${trace} bash -c ${bashQuote(script)} >/dev/null 2>&1`,
    `cat ${trace}; rm -f ${trace}`,
  ].join('\n');
  const r = await exec.run({ script: wrapped, label: 'count forks' }, { timeoutMs: 60_000, ...(stdin !== undefined ? { stdin } : {}) });
  const lines = r.stdout.split('\n');
  const forks = lines.filter((l) => /\b(clone3?|v?fork)\(/.test(l)).length;
  const execs: Record<string, number> = {};
  const paths = new Set<string>();
  let first = true;
  for (const line of lines) {
    const opened = /openat\(AT_FDCWD, "([^"]+)"/.exec(line)?.[1];
    if (opened && !NOT_READS.test(opened)) paths.add(opened);
    const m = /execve\("([^"]+)", \[(.*?)\]/.exec(line);
    if (!m || / = -1 /.test(line)) continue;
    if (first) {
      // The bash strace started: the script's own shell.
      first = false;
      continue;
    }
    const name = (m[1] ?? '').split('/').pop() ?? '';
    execs[name] = (execs[name] ?? 0) + 1;
  }
  return { forks, execs, paths: [...paths].sort() };
}

/** The same reads with builtins only: each path tested, and read whole when it is a file (read -d ''). */
export function floorScript(paths: readonly string[]): string {
  const lines = ['out=""'];
  for (const p of paths) {
    const q = bashQuote(p);
    lines.push(
      `if [[ -f ${q} ]]; then IFS= read -r -d '' v < ${q}; out+="\${#v} "; elif [[ -d ${q} ]]; then out+="d "; else out+="- "; fi`,
    );
  }
  lines.push('printf "%s\\n" "$out"');
  return lines.join('\n');
}

/** The floor script, then each command as the facts script runs one (`{ v=$(cmd); } 2>/dev/null`). */
export function floorWithToolsScript(paths: readonly string[], commands: readonly string[]): string {
  return [floorScript(paths), ...commands.map((c) => `{ v=$(${c}\n); } 2>/dev/null; printf '%s\\n' "\${#v}"`)].join('\n');
}

/** The commands (`sh` facts) of `name`'s re-verify: what no builtin can read. */
export function toolCommands(state: DesiredState, name: string): string[] {
  const node = state.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name}`);
  const queries = planNode(roleInput(state, node)).phases.flatMap((p) => p.resources.flatMap((r) => r.facts));
  return [...new Map(queries.filter((q) => q.sh !== undefined).map((q) => [q.id, q.sh as string])).values()];
}

/** One run of the floor on every host at once, in ms. */
export async function floorOnce(executors: ReadonlyMap<string, Executor>, script: string): Promise<number> {
  const started = performance.now();
  await Promise.all([...executors.values()].map((e) => e.run({ script, label: 'floor' }, { timeoutMs: 30_000 })));
  return performance.now() - started;
}
