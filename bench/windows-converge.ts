// A fresh Windows compute (Server 2016 and 2019) converged in the lab (real pwsh behind real sshd, one pwsh per
// command, as powershell.exe per SSH channel on a node), by this tree's roles and by a base commit's, alternating:
// commands sent, wall time, and the CPU spent on the hosts' side (sshd and every pwsh it starts). Issue 41 item 1
// (a set and the read after it in one command) is what it measures. GC_BENCH_BASE names the base commit (default
// 6b61377, before read-after); its roles and phase runner are imported from a worktree of it, the lab is this tree's.
//
// The hosts' side CPU is read from a cgroup (v1 cpuacct) that this process joins before the lab starts, so every
// process the lab spawns is in it: its usage less this process's own CPU is what the hosts' processes spent.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Command, CommandResult, Executor, RunOptions } from '../src/dataplane/executor.js';
import type { PhaseOutcome } from '../src/roles/phase.js';
import type { PlannedPhase } from '../src/roles/plan.js';
import { WindowsHost } from '../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../src/sim/windows/windows-state.js';
import { Lab } from '../test/lab/lab.js';
import { LabExecutors } from '../test/lab/lab-executors.js';
import { windowsInput } from '../test/support/inputs.js';

const ROOT = join(import.meta.dirname, '..');
const BUILDS = [14393, 17763] as const;

export interface WindowsConvergeRun {
  tree: 'base' | 'new';
  build: number;
  commands: number;
  wallMs: number;
  /** CPU (user + system) of the hosts' processes: sshd and the pwsh of every command. */
  hostCpuMs: number | undefined;
  reboots: number;
}

export interface WindowsConvergeResult {
  base: string;
  runs: WindowsConvergeRun[];
}

class Counted implements Executor {
  count = 0;
  constructor(private readonly inner: Executor) {}
  get os() {
    return this.inner.os;
  }
  run(command: Command, opts: RunOptions): Promise<CommandResult> {
    this.count++;
    return this.inner.run(command, opts);
  }
  close() {
    return this.inner.close();
  }
}

interface Roles {
  windowsPlan: (input: never) => { phases: PlannedPhase[] };
  passPhase: (exec: Executor, phase: PlannedPhase) => Promise<PhaseOutcome>;
}

const rolesOf = async (root: string): Promise<Roles> => ({
  windowsPlan: (await import(join(root, 'src/roles/windows/plan.ts'))).windowsPlan,
  passPhase: (await import(join(root, 'src/roles/phase.ts'))).passPhase,
});

/** A worktree of `commit` beside this checkout's node_modules, made once. */
function baseTree(commit: string): string {
  const dir = join(tmpdir(), `gc-bench-base-${commit}`);
  if (!existsSync(join(dir, 'src'))) {
    rmSync(dir, { recursive: true, force: true });
    execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, commit], { stdio: 'ignore' });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  }
  return dir;
}

const CPUACCT = '/sys/fs/cgroup/cpuacct';

/**
 * A cgroup (v1 cpuacct) holding this process and all it spawns from now on: its CPU so far in ms, and its removal
 * (this process back in the root group). Undefined where none can be made (not root, no cgroup v1).
 */
function joinCpuGroup(): { usage: () => number; leave: () => void } | undefined {
  const dir = join(CPUACCT, `gc-bench-${process.pid}`);
  try {
    mkdirSync(dir);
    writeFileSync(join(dir, 'cgroup.procs'), String(process.pid));
  } catch {
    return undefined;
  }
  return {
    usage: () => Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8')) / 1e6,
    leave: () => {
      writeFileSync(join(CPUACCT, 'cgroup.procs'), String(process.pid));
      rmdirSync(dir);
    },
  };
}

const ownCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function converge(lab: Lab, executors: LabExecutors, roles: Roles, build: WindowsBuild, usage: (() => number) | undefined) {
  lab.replaceModel('bw', WindowsHost.fresh({ hostname: 'bw', build }));
  const exec = new Counted(executors.of('bw'));
  const rc = lab.host('bc').address;
  const input = windowsInput({
    node: 'bw',
    controlNodes: rc,
    address: lab.host('bw').address,
    keystone: { address: rc, source: 'KEYSTONE_AUTH_HOST', user: 'admin', password: 'bench-s3cret', project: 'admin', domain: 'Default' },
    configApi: { address: rc },
  });
  const bootTime = "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToString('o')";
  const [cpu0, own0, began] = [usage?.(), ownCpuMs(), performance.now()];
  let [reboots, waits] = [0, 0];
  for (let pass = 0; ; pass++) {
    if (pass === 4) throw new Error(`bench: bw (build ${build}) did not converge in 4 passes`);
    let reboot = false;
    const phases = roles.windowsPlan(input as never).phases;
    for (const [i, phase] of phases.entries()) {
      const outcome = await roles.passPhase(exec, phase);
      if (outcome.failure) throw outcome.failure;
      reboot ||= outcome.rebootRequested;
      if (reboot && !(phase.batchesReboot && phases[i + 1]?.batchesReboot)) break;
    }
    if (!reboot) break;
    // The reboot and its wait, as the node machine does them; their commands are not the roles' and not counted.
    const before = (await exec.run({ script: bootTime }, { timeoutMs: 60_000 })).stdout;
    await exec.run({ script: 'Restart-Computer -Force' }, { timeoutMs: 60_000 });
    waits += 2;
    reboots++;
    for (;;) {
      const now = await exec.run({ script: bootTime }, { timeoutMs: 30_000 }).catch(() => undefined);
      waits++;
      if (now?.exitCode === 0 && now.stdout !== before) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const wallMs = performance.now() - began;
  const hostCpuMs = usage && cpu0 !== undefined ? usage() - cpu0 - (ownCpuMs() - own0) : undefined;
  return { commands: exec.count - waits, wallMs, hostCpuMs, reboots };
}

export async function runWindowsConverge(pairs = 1): Promise<WindowsConvergeResult> {
  const base = process.env.GC_BENCH_BASE ?? '6b61377';
  const trees = { base: await rolesOf(baseTree(base)), new: await rolesOf(ROOT) };
  const group = joinCpuGroup();
  const usage = group?.usage;
  const lab = await Lab.start({
    hosts: [
      { name: 'bc', os: 'linux', linux: { configApi: true, keystone: { password: 'bench-s3cret' } } },
      { name: 'bw', os: 'windows' },
    ],
    rebootMs: 300,
  });
  const executors = new LabExecutors(() => lab);
  const runs: WindowsConvergeRun[] = [];
  try {
    for (let pair = 0; pair < pairs; pair++)
      for (const build of BUILDS) {
        // Base first in even pairs, new first in odd ones: neither always meets a warmer machine.
        const order = pair % 2 === 0 ? (['base', 'new'] as const) : (['new', 'base'] as const);
        for (const tree of order) {
          const r = await converge(lab, executors, trees[tree], build, usage);
          console.log(
            `windows-converge: ${tree} build ${build}: ${r.commands} commands, ${(r.wallMs / 1000).toFixed(1)} s wall, ` +
              `hosts' CPU ${r.hostCpuMs === undefined ? 'not measured' : `${(r.hostCpuMs / 1000).toFixed(1)} s`}, ${r.reboots} reboot(s)`,
          );
          runs.push({ tree, build, ...r });
        }
      }
  } finally {
    await executors.close();
    await lab.stop();
    group?.leave();
  }
  return { base, runs };
}
