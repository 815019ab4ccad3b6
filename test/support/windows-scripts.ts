// Every script the Windows roles can emit, by construction: the roles' own functions driven over a matrix of
// inputs, on simulated hosts of both builds, each script kept with the builds it was sent to. The cmdlet catalogue
// test and the Windows PowerShell 5.1 syntax test both read this one list.
//
// The matrix: both builds (Server 2016 = 14393, 2019 = 17763); one Contrail version per naming of the docker
// driver (driver-names.ts); a plain input and one with every optional phase (overlay, Keystone, CNM plugin, debug
// DLLs, kubelet) and value (an insecure registry, a domain suffix). On each build and version a fresh host is converged (what a first pass sends), read for its boot
// id and readiness, given an older overlay, then each resource's set of every input is forced on that host's real
// facts (a drifted host: restarts, stale routes, an MSI of the other version to replace), then deconfigured and
// rebooted. Without a host, every phase's facts script (alone, and every phase's in one, as a re-verify reads
// them) and each resource's set on no facts at all (what a set sends to a fresh node). The wire's prelude too.

import type { Command, CommandResult, Executor } from '../../src/dataplane/executor.js';
import { SimExecutor, SimShells } from '../../src/dataplane/sim-executor.js';
import { POWERSHELL_PRELUDE } from '../../src/dataplane/wire.js';
import type { WindowsRoleInput } from '../../src/roles/input.js';
import { checkReadiness, issueReboot, readBootId } from '../../src/roles/node-commands.js';
import { type Phase, testPhase, testPhases } from '../../src/roles/phase.js';
import { windowsDeconfigure } from '../../src/roles/windows/deconfigure.js';
import { driverNames } from '../../src/roles/windows/driver-names.js';
import { windowsPlan } from '../../src/roles/windows/plan.js';
import { WindowsHost } from '../../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../../src/sim/windows/windows-state.js';
import { applyPhase } from './apply-phase.js';
import { kubeletInput, windowsInput } from './inputs.js';
import { Recorder } from './recorder.js';

export const BUILDS: readonly WindowsBuild[] = [14393, 17763];

/** One version per name of the docker driver (5.0: contrail-windows-docker-driver; later: the CNM plugin). */
export const CONTRAIL_VERSIONS = ['5.0.1', '5.1.0'] as const;

/** A script and the builds it was sent to (a script that no host answered goes to every build). */
export interface EmittedScript {
  script: string;
  builds: WindowsBuild[];
}

const OVERLAY: NonNullable<WindowsRoleInput['overlay']> = {
  subnet: '10.244.1.0/24',
  gateway: '10.244.1.1',
  prefixLength: 24,
  routes: [{ prefix: '10.244.2.0/24', via: '192.0.2.22', kind: 'peer' }],
  ports: [{ port: 8080, toAddress: '10.244.1.5', toPort: 80 }],
};

/** An overlay the host had before: other peers and ports, so each input's overlay finds stale ones to remove. */
const OLD_OVERLAY: NonNullable<WindowsRoleInput['overlay']> = {
  ...OVERLAY,
  routes: [{ prefix: '10.244.3.0/24', via: '192.0.2.23', kind: 'peer' }],
  ports: [{ port: 9090, toAddress: '10.244.1.6', toPort: 90 }],
};

/** The plain input and the one with every optional phase, at a Contrail version. */
function inputs(contrailVersion: string): WindowsRoleInput[] {
  return [
    windowsInput({ contrailVersion }),
    windowsInput({
      contrailVersion,
      roles: ['vrouter', 'win_cnm_plugin', 'k8s_node'],
      overlay: OVERLAY,
      keystone: { address: '192.0.2.10', source: 'KEYSTONE_AUTH_HOST', user: 'admin', password: 'p', project: 'admin', domain: 'Default' },
      configApi: { address: '192.0.2.10' },
      debugDlls: [{ name: 'vRouter.pdb.dll', content: Buffer.from('dll') }],
      kubelet: kubeletInput('v1.29.4'),
      registryInsecure: true,
      domainSuffix: 'lab.example',
    }),
  ];
}

/** Answers every command with success, so each resource's set says what it would send. */
class Accepting implements Executor {
  readonly os = 'windows' as const;
  readonly scripts: string[] = [];
  async run(cmd: Command): Promise<CommandResult> {
    this.scripts.push(cmd.script);
    return { exitCode: 0, stdout: '{"exitCode":0,"log":""}', stderr: '', durationMs: 0 } as CommandResult;
  }
  async close() {}
}

/** Every phase of every input at every version, and deconfigure. */
export function everyWindowsPhase(): Phase[] {
  return [...CONTRAIL_VERSIONS.flatMap((v) => inputs(v).flatMap((i) => windowsPlan(i).phases)), windowsDeconfigure()];
}

/**
 * Every resource's set on the real facts of a host that already has things, some not as wanted. A fact that
 * cannot be read fails the enumeration: it would otherwise lose the branches silently.
 */
async function driftedSets(exec: Executor, accepting: Executor, phases: Phase[]): Promise<void> {
  for (const phase of phases) {
    const { facts } = await testPhase(exec, phase);
    for (const resource of phase.resources) await resource.set({ exec: accepting, facts }).catch(() => undefined);
  }
}

/** What one host of `build` is sent, from fresh to deconfigured, with the input at `contrailVersion`. */
async function hostScripts(shells: SimShells, build: WindowsBuild, contrailVersion: string): Promise<string[]> {
  const host = WindowsHost.fresh({ hostname: 'win1', build });
  const exec = new Recorder(new SimExecutor({ host, shells }));
  const accepting = new Accepting();
  const input = windowsInput({ contrailVersion });
  for (let pass = 0; pass < 3; pass++) {
    let reboot = false;
    for (const phase of windowsPlan(input).phases) {
      reboot ||= (await applyPhase(exec, phase)).rebootRequested;
      if (reboot && !phase.batchesReboot) break;
    }
    if (!reboot) break;
    host.reboot();
  }
  await readBootId(exec);
  await checkReadiness(exec, 'ready');
  const old = windowsPlan(windowsInput({ contrailVersion, overlay: OLD_OVERLAY })).phases.find((p) => p.name === 'overlay');
  if (!old) throw new Error('no overlay phase for an input with an overlay');
  const applied = await applyPhase(exec, old);
  if (applied.resources.some((r) => r.status === 'failed')) throw new Error(`the older overlay did not apply: ${JSON.stringify(applied)}`);
  await driftedSets(exec, accepting, everyWindowsPhase());
  await applyPhase(exec, windowsDeconfigure());
  await issueReboot(exec);
  return [...exec.scripts, ...accepting.scripts];
}

/** What is sent without a host: facts scripts, and each set on no facts (a fresh node). */
async function hostlessScripts(): Promise<string[]> {
  const accepting = new Accepting();
  const ignore = () => undefined;
  for (const version of CONTRAIL_VERSIONS)
    for (const input of inputs(version)) await testPhases(accepting, windowsPlan(input).phases).catch(ignore);
  for (const phase of everyWindowsPhase()) {
    await testPhase(accepting, phase).catch(ignore);
    for (const resource of phase.resources) await resource.set({ exec: accepting, facts: new Map() }).catch(ignore);
  }
  return [POWERSHELL_PRELUDE, ...accepting.scripts];
}

let emitted: Promise<EmittedScript[]> | undefined;

/** Every distinct script, each with the builds it was sent to. Computed once per test file. */
export function emittedWindowsScripts(): Promise<EmittedScript[]> {
  emitted ??= (async () => {
    if (new Set(CONTRAIL_VERSIONS.map((v) => driverNames(v).service)).size !== CONTRAIL_VERSIONS.length)
      throw new Error('CONTRAIL_VERSIONS must name each docker driver once: driver-names.ts changed');
    const shells = await SimShells.create();
    const byScript = new Map<string, Set<WindowsBuild>>();
    const add = (script: string, builds: readonly WindowsBuild[]) => {
      const set = byScript.get(script) ?? new Set<WindowsBuild>();
      for (const b of builds) set.add(b);
      byScript.set(script, set);
    };
    for (const build of BUILDS)
      for (const version of CONTRAIL_VERSIONS) for (const s of await hostScripts(shells, build, version)) add(s, [build]);
    for (const s of await hostlessScripts()) add(s, BUILDS);
    return [...byScript].map(([script, builds]) => ({ script, builds: [...builds].sort() }));
  })();
  return emitted;
}
