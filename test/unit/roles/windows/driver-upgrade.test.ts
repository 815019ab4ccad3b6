// The driver across Contrail 5.0 and 5.1: 5.0 runs contrail-docker-driver ("Contrail Docker Driver"), 5.1 the
// contrail-cnm-plugin ("Contrail CNM Plugin"), c-a-d create_win_docker_driver.yml then contrail_cnm_windows. A
// node upgraded from one to the other (or reverted) must lose the old driver first: running, it holds the
// Contrail switch and the data adapter's address, and the new plugin's start waits for that address (cnm-init.ts).

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import { type PhaseOutcome, passPhase } from '../../../../src/roles/phase.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { windowsInput } from '../../../support/inputs.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

/** Every phase in turn, a reboot when one asks; the outcomes of the last pass. */
async function converge(host: WindowsHost, input: WindowsRoleInput): Promise<PhaseOutcome[]> {
  const exec = new SimExecutor({ host, shells });
  for (let pass = 0; pass < 4; pass++) {
    const outcomes: PhaseOutcome[] = [];
    let reboot = false;
    const { phases } = windowsPlan(input);
    for (const [i, phase] of phases.entries()) {
      const outcome = await passPhase(exec, phase);
      outcomes.push(outcome);
      if (outcome.failure) return outcomes;
      reboot ||= outcome.rebootRequested;
      if (reboot && !(phase.batchesReboot && phases[i + 1]?.batchesReboot)) break;
    }
    if (!reboot) return outcomes;
    host.reboot();
  }
  throw new Error('did not converge in 4 passes');
}

const failures = (outcomes: PhaseOutcome[]) => outcomes.filter((o) => o.failure).map((o) => `${o.phase}: ${o.failure?.message}`);
const products = (host: WindowsHost) => Object.values(host.state.products).map((p) => p.name);

describe('the driver across 5.0 and 5.1', () => {
  it.each([14393, 17763] as WindowsBuild[])(
    'on Server build %i: 5.0.1 -> 5.1.0 takes the docker driver off and verifies; back to 5.0.1 the same',
    async (build) => {
      const host = WindowsHost.fresh({ hostname: 'win1', build });
      expect(failures(await converge(host, windowsInput({ contrailVersion: '5.0.1' })))).toEqual([]);
      expect(host.isRunning('contrail-docker-driver')).toBe(true);

      const up = await converge(host, windowsInput({ contrailVersion: '5.1.0' }));
      expect(failures(up)).toEqual([]);
      expect(up.map((o) => o.phase)).toContain('verify');
      expect(host.service('contrail-docker-driver')).toBeUndefined();
      expect(host.isRunning('contrail-cnm-plugin')).toBe(true);
      expect(products(host)).toContain('Contrail CNM Plugin');
      expect(products(host)).not.toContain('Contrail Docker Driver');

      const down = await converge(host, windowsInput({ contrailVersion: '5.0.1' }));
      expect(failures(down)).toEqual([]);
      expect(down.map((o) => o.phase)).toContain('verify');
      expect(host.service('contrail-cnm-plugin')).toBeUndefined();
      expect(host.isRunning('contrail-docker-driver')).toBe(true);
      expect(products(host)).not.toContain('Contrail CNM Plugin');
    },
    90_000,
  );
});
