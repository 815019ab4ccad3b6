// Contrail's diagnostic check (contrail-windows-tools Invoke-DiagnosticCheck.ps1), as the verified phase reads it,
// in real PowerShell (pwsh 7.6.9 over the simulated host: test/support/real-pwsh-host.ts): a Server 2016 and a 2019
// host converged by the roles hold every item, and each component broken (diagnostic-breaks.ts) fails its item.
// The facts script is the one groundcrew sends (roles/facts.ts, behind the wire's prelude), so real pwsh parses,
// binds and evaluates every query: the simulated host answers only the cmdlets and programs.
//
// The CNM pipe's connect (`NamedPipeClientStream.Connect`) is read here too: a simulated object's methods cross the
// bridge (real-pwsh/wire-values.ts), so every item is read as on a node.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { POWERSHELL_PRELUDE } from '../../../../src/dataplane/wire.js';
import { oncePerId, windowsFactsScript } from '../../../../src/roles/facts.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { windowsVerify } from '../../../../src/roles/windows/verify.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild, WindowsState } from '../../../../src/sim/windows/windows-state.js';
import { convergePhases } from '../../../support/converge-phases.js';
import { BREAKS } from '../../../support/diagnostic-breaks.js';
import { windowsInput } from '../../../support/inputs.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';

const BUILDS: WindowsBuild[] = [14393, 17763];
const input = windowsInput();
const verify = windowsVerify(input);
const converged = new Map<WindowsBuild, string>();

beforeAll(async () => {
  const shells = await SimShells.create();
  for (const build of BUILDS) {
    const host = WindowsHost.fresh({ hostname: 'win1', build });
    const exec = new SimExecutor({ host, shells });
    await convergePhases(
      exec,
      () => windowsPlan(input).phases,
      () => host.reboot(),
      { throwOnFailure: true },
    );
    converged.set(build, JSON.stringify(host.state));
  }
}, 120_000);

const copy = (build: WindowsBuild) => new WindowsHost(JSON.parse(converged.get(build) ?? '{}') as WindowsState);

/** The verified phase's facts read in real pwsh: each item's differing properties, and the facts that failed. */
async function diagnoseInRealPwsh(host: WindowsHost) {
  const queries = oncePerId(verify.resources.flatMap((r) => r.facts));
  const run = await runInRealPwsh(host, POWERSHELL_PRELUDE + windowsFactsScript(queries), { timeoutMs: 240_000 });
  if (run.exitCode !== 0) throw new Error(`the facts script failed in real pwsh (exit ${run.exitCode}): ${run.stderr}`);
  const answer = JSON.parse(run.stdout) as { facts: Record<string, unknown>; failed: Record<string, string> };
  const facts = new Map(queries.map((q) => [q.id, answer.facts[q.id] ?? null]));
  const items = Object.fromEntries(
    verify.resources.map((r) => {
      return [r.name, r.test(facts).differingProperties];
    }),
  );
  return { items, failed: answer.failed };
}

describe('the diagnostic list in real pwsh', () => {
  it.each(BUILDS)(
    'holds on every item on a converged Server build %i',
    async (build) => {
      const { items, failed } = await diagnoseInRealPwsh(copy(build));
      expect(Object.entries(items).filter(([, differing]) => differing.length > 0)).toEqual([]);
      expect(failed).toEqual({});
    },
    300_000,
  );

  it.each(BUILDS)(
    'on Server build %i each broken component fails its own item',
    async (build) => {
      const breaks = BREAKS;
      const missed: string[] = [];
      // Three pwsh processes at a time: each starts in about a second, longer on the busy machine.
      for (let i = 0; i < breaks.length; i += 3) {
        await Promise.all(
          breaks.slice(i, i + 3).map(async ([item, breakIt, resource, property]) => {
            const host = copy(build);
            breakIt(host);
            const { items } = await diagnoseInRealPwsh(host);
            if (!items[resource]?.includes(property)) missed.push(`${item}: ${resource} differs in ${JSON.stringify(items[resource])}`);
          }),
        );
      }
      expect(missed).toEqual([]);
      expect(breaks.length).toBeGreaterThanOrEqual(20);
    },
    900_000,
  );
});
