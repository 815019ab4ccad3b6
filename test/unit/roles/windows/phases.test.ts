// The Windows phases on the simulated host: converge from fresh, idempotence, reboots, upgrades, MSI failures.

import { beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../../../src/dataplane/executor.js';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { POWERSHELL_PRELUDE } from '../../../../src/dataplane/wire.js';
import { windowsFactsScript } from '../../../../src/roles/facts.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import { type Phase, passPhase } from '../../../../src/roles/phase.js';
import { AGENT_MSI, CNM_PLUGIN_MSI, DOCKER_DRIVER_MSI, UTILS_MSI, VROUTER_MSI } from '../../../../src/roles/windows/msi-products.js';
import { MSI_RECORD_DIR, UNKNOWN_BUILD } from '../../../../src/roles/windows/msi-resource.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { loadPowerShellParser } from '../../../../src/sim/shells/powershell/parser.js';
import { MSI_PRODUCTS } from '../../../../src/sim/windows/msi-products.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { convergePhases } from '../../../support/converge-phases.js';
import { windowsInput } from '../../../support/inputs.js';
import { Recorder } from '../../../support/recorder.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const input = windowsInput;

function simHost(options: { features?: string[]; signed?: boolean } = {}) {
  const host = WindowsHost.fresh({
    hostname: 'win1',
    features: options.features ?? [],
    catalog: { signedVrouter: options.signed ?? false },
  });
  const exec = new Recorder(new SimExecutor({ host, shells }));
  return { host, exec };
}

/** What the node machine will do: the plan's phases in its order; a failed phase throws. */
const converge = (host: WindowsHost, exec: Executor, wanted: WindowsRoleInput) =>
  convergePhases(
    exec,
    () => windowsPlan(wanted).phases,
    () => host.reboot(),
    { throwOnFailure: true },
  );

const versions = (host: WindowsHost) =>
  Object.values(host.state.products)
    .map((p) => `${p.name} ${p.version} from ${p.build}`)
    .sort();

describe('Windows phases on a simulated host', () => {
  it('converge a fresh host with one reboot for features and test signing together', async () => {
    const { host, exec } = simHost();
    const { reboots, outcomes } = await converge(host, exec, input());
    expect(reboots).toBe(1);
    expect(outcomes.map((o) => [o.phase, o.inDesiredState])).toEqual([
      ['prereqs', true],
      ['testSigning', true],
      ['vrouter', true],
      ['driver', true],
      ['verify', true],
    ]);
    // The real products' names and fixed versions (msi-products.ts); the build is what groundcrew records.
    expect(versions(host)).toEqual([
      'Agent 0.0.1 from 5.0.1',
      'Contrail Docker Driver 0.1 from 5.0.1',
      'vRouter 1.0.0 from 5.0.1',
      'vRouter utilities 0.0.1 from 5.0.1',
    ]);
    expect(host.pipes().sort()).toEqual(['Contrail', 'docker_engine', 'ksync', 'pkt0']);
  });

  it('a converged host: every phase reads its facts in one command and changes nothing', async () => {
    const { host, exec } = simHost();
    await converge(host, exec, input());
    const journal = host.state.journal.length;
    for (const phase of windowsPlan(input()).phases) {
      const outcome = await applyPhase(exec, phase);
      expect(
        outcome.resources.every((r) => r.status === 'ok'),
        phase.name,
      ).toBe(true);
      expect(outcome.commands, phase.name).toBe(1);
      expect(outcome.rebootRequested).toBe(false);
    }
    expect(host.state.journal.slice(journal)).toEqual([]);
  });

  it('a host with its features, on the signed vRouter, never reboots', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'], signed: true });
    const { reboots, outcomes } = await converge(host, exec, input({ testSigning: false, signedVrouter: true }));
    expect(reboots).toBe(0);
    expect(outcomes.map((o) => o.phase)).toEqual(['prereqs', 'vrouter', 'driver', 'verify']);
    expect(outcomes.every((o) => o.inDesiredState)).toBe(true);
  });

  it('test signing configured but not active asks for the reboot once; once active it never asks', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'] });
    const [, testSigning] = windowsPlan(input()).phases;
    if (!testSigning) throw new Error('no testSigning phase');
    const first = await applyPhase(exec, testSigning);
    expect(first).toMatchObject({ rebootRequested: true, inDesiredState: false });
    expect(first.resources[0]).toMatchObject({ status: 'changed', before: { differingProperties: ['Configured', 'Active'] } });
    host.reboot();
    const second = await applyPhase(exec, testSigning);
    expect(second).toMatchObject({ rebootRequested: false, inDesiredState: true, commands: 1 });
  });

  it('upgrade 5.0.1 -> 5.0.2 and back leaves exactly the desired MSI versions', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'], signed: true });
    await converge(host, exec, input({ testSigning: false, signedVrouter: true }));
    await converge(host, exec, input({ testSigning: false, signedVrouter: true, contrailVersion: '5.0.2' }));
    expect(versions(host)).toEqual([
      'Agent 0.0.1 from 5.0.2',
      'Contrail Docker Driver 0.1 from 5.0.2',
      'vRouter 1.0.0 from 5.0.2',
      'vRouter utilities 0.0.1 from 5.0.2',
    ]);
    const { outcomes } = await converge(host, exec, input({ testSigning: false, signedVrouter: true, contrailVersion: '5.0.1' }));
    expect(versions(host)).toEqual([
      'Agent 0.0.1 from 5.0.1',
      'Contrail Docker Driver 0.1 from 5.0.1',
      'vRouter 1.0.0 from 5.0.1',
      'vRouter utilities 0.0.1 from 5.0.1',
    ]);
    expect(outcomes.at(-1)?.inDesiredState).toBe(true);
    expect(host.state.journal.filter((j) => j.startsWith('msi-uninstall')).length).toBe(8);
  });

  it('after 5.0 the driver is the Contrail CNM Plugin product; the MSIs registered under the names the roles check', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'], signed: true });
    const { outcomes } = await converge(host, exec, input({ testSigning: false, signedVrouter: true, contrailVersion: '5.1.0' }));
    expect(outcomes.at(-1)?.inDesiredState).toBe(true);
    expect(versions(host)).toEqual([
      'Agent 0.0.1 from 5.1.0',
      'Contrail CNM Plugin 1.0.0 from 5.1.0',
      'vRouter 1.0.0 from 5.1.0',
      'vRouter utilities 0.0.1 from 5.1.0',
    ]);
    // The roles' names and the simulator's are each taken from the WiX sources: they must be the same.
    const simulated = Object.values(MSI_PRODUCTS).map((p) => p.name);
    expect([VROUTER_MSI, UTILS_MSI, AGENT_MSI, CNM_PLUGIN_MSI, DOCKER_DRIVER_MSI].map((m) => m.product).sort()).toEqual(simulated.sort());
  });

  it('an MSI installed without groundcrew (no record of its build) is reinstalled from the wanted build', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'], signed: true });
    await converge(host, exec, input({ testSigning: false, signedVrouter: true }));
    // As if c-a-d or an operator had installed the utilities: the product is there, groundcrew's record is not.
    host.fs.remove(`${MSI_RECORD_DIR}\\vRouter-utilities.build`, false);
    const vrouter = windowsPlan(input({ testSigning: false, signedVrouter: true })).phases.find((p) => p.name === 'vrouter') as Phase;
    const journal = host.state.journal.length;
    const outcome = await applyPhase(exec, vrouter);
    expect(outcome.resources.find((r) => r.resource === 'msi/utils')).toMatchObject({
      status: 'changed',
      before: { actual: { Build: UNKNOWN_BUILD }, desired: { Build: '5.0.1' } },
    });
    expect(host.state.journal.slice(journal).filter((j) => j.startsWith('msi-'))).toEqual([
      'msi-uninstall vRouter utilities 5.0.1',
      'msi-install vRouter utilities 5.0.1',
    ]);
    expect((await applyPhase(exec, vrouter)).inDesiredState).toBe(true);
  });

  it('MSI 1603 is GC_MSI_FAILED, terminal, with the tail of the MSI log', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'], signed: true });
    host.state.faults = { failMsi: ['utils.msi'] };
    const err = await converge(host, exec, input({ testSigning: false, signedVrouter: true })).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'GC_MSI_FAILED', retryable: false });
    expect((err as Error).message).toMatch(
      /installing vRouter utilities 5.0.1: msiexec install failed with 1603; the MSI log ends:\n.*injected fault/s,
    );
    // The pass's outcome (the run report) records the failed resource and the failure with it.
    const vrouter = windowsPlan(input({ testSigning: false, signedVrouter: true })).phases.find((p) => p.name === 'vrouter');
    const outcome = await passPhase(exec, vrouter as Phase);
    expect(outcome.failure).toMatchObject({ code: 'GC_MSI_FAILED' });
    expect(outcome.resources.find((r) => r.resource === 'msi/utils')).toMatchObject({ status: 'failed' });
  });

  it('MSI 1618 (another install running) is GC_MSI_BUSY and retryable; the retry succeeds', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'], signed: true });
    host.state.faults = { busyMsi: 1 };
    await expect(converge(host, exec, input({ testSigning: false, signedVrouter: true }))).rejects.toMatchObject({
      code: 'GC_MSI_BUSY',
      retryable: true,
    });
    expect((await converge(host, exec, input({ testSigning: false, signedVrouter: true }))).outcomes.at(-1)?.inDesiredState).toBe(true);
  });

  it('the unsigned vRouter without test signing fails honestly (1603), it does not pretend', async () => {
    const { host, exec } = simHost({ features: ['Containers', 'Hyper-V'] });
    await expect(converge(host, exec, input({ testSigning: false }))).rejects.toMatchObject({
      code: 'GC_MSI_FAILED',
      message: expect.stringMatching(/not trusted|test signing is not active/),
    });
  });

  it('every PowerShell script the phases emitted parses with tree-sitter-powershell', async () => {
    const parser = await loadPowerShellParser();
    const { host, exec } = simHost();
    await converge(host, exec, input());
    await converge(host, exec, input({ contrailVersion: '5.0.2' }));
    const scripts = new Set([
      ...exec.scripts,
      ...windowsPlan(input()).phases.map((p) => windowsFactsScript(p.resources.flatMap((r) => r.facts))),
    ]);
    expect(scripts.size).toBeGreaterThan(20);
    for (const script of scripts) {
      const tree = parser.parse(POWERSHELL_PRELUDE + script);
      expect(tree?.rootNode.hasError, script).toBe(false);
      tree?.delete();
    }
  });
});

describe('each Windows phase, one at a time', () => {
  it('on a fresh host: test finds differences, set applies them, a second test finds none', async () => {
    const { testPhase } = await import('../../../../src/roles/phase.js');
    const { exec } = simHost({ features: ['Containers', 'Hyper-V'], signed: true });
    for (const phase of windowsPlan(input({ testSigning: false, signedVrouter: true })).phases) {
      const before = await testPhase(exec, phase);
      // verify only checks what the phases before it set: on a host they just converged, it finds nothing.
      if (phase.name !== 'verify')
        expect(
          [...before.results.values()].some((r) => !r.inDesiredState),
          `${phase.name} before`,
        ).toBe(true);
      const outcome = await applyPhase(exec, phase);
      expect(outcome.inDesiredState, phase.name).toBe(true);
      const after = await testPhase(exec, phase);
      expect(
        [...after.results.entries()].filter(([, r]) => !r.inDesiredState).map(([n]) => n),
        `${phase.name} after`,
      ).toEqual([]);
    }
  });
});
