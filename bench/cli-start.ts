// What a read command costs to start (issue 41, item 5): `groundcrew status` against a running daemon beside
// `groundcrew --help`, CPU (user + sys) of each child process, alternated run by run so the machine's load falls
// on both alike. The daemon is `groundcrew demo` on any free port with a runtime directory of the benchmark's own,
// where `status --url URL` finds its record: token file and identity key, the proof asked before the reads.
// GC_BENCH_CLI_BASE=PATH/main.js adds another build's `status` (an older commit's) to the same rounds.

import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Spread, spread } from './stats.js';

const BIN = join(import.meta.dirname, '..', 'dist', 'src', 'cli', 'main.js');

export interface CliStartResult {
  runs: number;
  helpCpuMs: Spread;
  statusCpuMs: Spread;
  /** Median status CPU / median --help CPU. */
  ratio: number;
  base?: { bin: string; statusCpuMs: Spread; ratio: number };
}

/**
 * CPU milliseconds (user + sys) of one `node BIN ...args`, read by bash's `times` (the children's line): the
 * child's own accounting, whatever else runs. Non-zero exit is an error: a failed `status` measures nothing.
 */
function cpuOf(bin: string, args: string[], env: NodeJS.ProcessEnv): number {
  const run = spawnSync('bash', ['-c', '"$@" >/dev/null || exit 7; times', 'cpu', process.execPath, bin, ...args], {
    encoding: 'utf8',
    env,
  });
  if (run.status !== 0) throw new Error(`${bin} ${args.join(' ')}: exit ${run.status}: ${run.stderr}`);
  const children = run.stdout.trim().split('\n').at(-1) ?? '';
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(children);
  if (!m) throw new Error(`times said ${JSON.stringify(run.stdout)}`);
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}

async function startDemo(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'demo', '--port', '0', '--reboot-seconds', '0.1'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const url = /status page: {2}(http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1];
    if (url) return { child, url };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the demo daemon did not start within 60 s:\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function runCliStart(runs = 20): Promise<CliStartResult> {
  const dir = mkdtempSync(join(tmpdir(), 'gc-bench-cli-'));
  const env: NodeJS.ProcessEnv = { ...process.env, GROUNDCREW_RUNTIME_DIR: join(dir, 'run') };
  delete env.GROUNDCREW_URL;
  delete env.GROUNDCREW_CONFIG;
  delete env.GROUNDCREW_API_TOKEN_FILE;
  const { child, url } = await startDemo(env);
  const status = ['status', '--url', url];
  const base = process.env.GC_BENCH_CLI_BASE;
  try {
    // Once each, unmeasured: the daemon's first answers and the page cache are not what is measured.
    cpuOf(BIN, ['--help'], env);
    cpuOf(BIN, status, env);
    if (base) cpuOf(base, status, env);
    const help: number[] = [];
    const statusCpu: number[] = [];
    const baseStatus: number[] = [];
    for (let i = 0; i < runs; i++) {
      help.push(cpuOf(BIN, ['--help'], env));
      statusCpu.push(cpuOf(BIN, status, env));
      if (base) baseStatus.push(cpuOf(base, status, env));
    }
    const helpCpuMs = spread(help);
    const statusCpuMs = spread(statusCpu);
    return {
      runs,
      helpCpuMs,
      statusCpuMs,
      ratio: statusCpuMs.median / helpCpuMs.median,
      ...(base ? { base: { bin: base, statusCpuMs: spread(baseStatus), ratio: spread(baseStatus).median / helpCpuMs.median } } : {}),
    };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const late = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(late);
    rmSync(dir, { recursive: true, force: true });
  }
}
