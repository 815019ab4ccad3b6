// The host states the role-script differential sends each script to, per build: a fresh Windows Server, and a
// drifted one (converged by the roles through the TypeScript interpreter, then its Contrail services stopped and
// test signing turned off, as after a crash and a firmware reset). Each case gets its own clones of them.

import { SimExecutor, type SimShells } from '../../../../src/dataplane/sim-executor.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { stopService } from '../../../../src/sim/windows/service-rules.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild, WindowsState } from '../../../../src/sim/windows/windows-state.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { windowsInput } from '../../../support/inputs.js';

export type HostKind = 'fresh' | 'drifted';

const fresh = (build: WindowsBuild) => WindowsHost.fresh({ hostname: 'win1', build });

async function drifted(shells: SimShells, build: WindowsBuild): Promise<WindowsHost> {
  const host = fresh(build);
  const exec = new SimExecutor({ host, shells });
  const phases = windowsPlan(windowsInput({ contrailVersion: '5.0.1' })).phases;
  for (let pass = 0; ; pass++) {
    if (pass === 4) throw new Error(`a fresh ${build} host did not converge in 4 passes`);
    let reboot = false;
    for (const phase of phases) {
      // A phase that does not batch reboots waits for the one asked for (the controller reboots first).
      if (reboot && !phase.batchesReboot) break;
      const applied = await applyPhase(exec, phase);
      if (applied.resources.some((r) => r.status === 'failed')) throw new Error(`phase ${phase.name} failed: ${JSON.stringify(applied)}`);
      reboot ||= applied.rebootRequested;
    }
    if (!reboot) break;
    host.reboot();
  }
  const own = new Set(Object.keys(fresh(build).state.services));
  const added = Object.values(host.state.services).filter((s) => !own.has(s.name.toLowerCase()) && s.status === 'Running');
  if (added.length === 0) throw new Error('the converged host runs no service of its own: nothing to drift');
  for (const service of added) stopService(host, service.name, true);
  host.state.bcdTestSigning = false;
  return host;
}

/** Each kind of host, per build, as JSON (a clone is parsed from it). */
export async function hostStates(shells: SimShells, builds: readonly WindowsBuild[]): Promise<Map<string, string>> {
  const states = new Map<string, string>();
  for (const build of builds) {
    states.set(`${build}-fresh`, JSON.stringify(fresh(build).state));
    states.set(`${build}-drifted`, JSON.stringify((await drifted(shells, build)).state));
  }
  return states;
}

export const cloneHost = (json: string) => new WindowsHost(JSON.parse(json) as WindowsState);
