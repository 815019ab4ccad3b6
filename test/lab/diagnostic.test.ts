// Contrail's diagnostic check (contrail-windows-tools Invoke-DiagnosticCheck.ps1) as the verify phase, over
// real SSH: a Server 2016 and a Server 2019 host behind sshd, converged by the roles, hold every item; a
// component broken on the host fails its item. The same check the in-process tests run
// (test/unit/roles/windows/diagnostic-check.test.ts), through the wire a real node is driven over.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshExecutor } from '../../src/dataplane/ssh-executor.js';
import { testPhase } from '../../src/roles/phase.js';
import { windowsPlan } from '../../src/roles/windows/plan.js';
import { windowsVerify } from '../../src/roles/windows/verify.js';
import { convergePhases } from '../support/converge-phases.js';
import { windowsInput } from '../support/inputs.js';
import { waitUntil } from '../support/wait-until.js';
import { Lab } from './lab.js';
import { LabExecutors } from './lab-executors.js';

let lab: Lab;
const executors = new LabExecutors(() => lab);
const HOSTS = [
  { name: 'd16', build: 14393 as const },
  { name: 'd19', build: 17763 as const },
];

beforeAll(async () => {
  lab = await Lab.start({
    hosts: HOSTS.map((h) => ({ name: h.name, os: 'windows' as const, windows: { build: h.build } })),
    rebootMs: 300,
  });
});
afterAll(async () => {
  await executors.close();
  await lab?.stop();
});

const executor = (name: string) => executors.of(name);

const BOOT_TIME = "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToString('o')";

/** The node machine's order over SSH: phases in turn, the batched reboot taken and waited for (a new boot time). */
/** Restart-Computer over SSH, then wait for the host to answer with a new boot time. */
async function rebootOverSsh(exec: SshExecutor, name: string): Promise<void> {
  const before = (await exec.run({ script: BOOT_TIME }, { timeoutMs: 10_000 })).stdout;
  await exec.run({ script: 'Restart-Computer -Force' }, { timeoutMs: 10_000 });
  await waitUntil(
    `${name} back from its reboot`,
    async () => {
      const now = await exec.run({ script: BOOT_TIME }, { timeoutMs: 2000 });
      return now.exitCode === 0 && now.stdout !== before;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

/** The node machine's order over SSH: phases in turn, the batched reboot taken and waited for. */
const converge = (exec: SshExecutor, name: string) =>
  convergePhases(
    exec,
    () => windowsPlan(windowsInput({ node: name })).phases,
    () => rebootOverSsh(exec, name),
    {
      passes: 3,
      throwOnFailure: true,
    },
  );

async function diagnose(exec: SshExecutor, name: string) {
  const { results } = await testPhase(exec, windowsVerify(windowsInput({ node: name })));
  return Object.fromEntries([...results].map(([resource, r]) => [resource, r.differingProperties]));
}

describe.each(HOSTS)('the diagnostic check over SSH on $name (Server build $build)', ({ name }) => {
  // A converge under real pwsh: each command starts a pwsh (seconds each on a busy machine), as in roles.test.ts.
  it('holds on every item once the roles converged the host; a broken component fails its item', { timeout: 900_000 }, async () => {
    const exec = executor(name);
    await converge(exec, name);
    const failing = Object.entries(await diagnose(exec, name)).filter(([, differing]) => differing.length > 0);
    expect(failing).toEqual([]);

    const faults = lab.windows(name).state.faults;
    faults.bridgeTableBroken = true;
    faults.pipeNotServing = true;
    lab.windows(name).state.firewall.Domain = true;
    const broken = await diagnose(exec, name);
    expect(broken['verify/vifs']).toEqual(['bridgeTableDevice']);
    expect(broken['verify/cnm-plugin']).toEqual(['PipeServes']);
    expect(broken['verify/compute-node']).toEqual(['FirewallEnabledProfiles']);
  });
});
