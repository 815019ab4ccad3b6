// An adapter the inventory names that the node does not have stops prereqs at once, before any change, with the
// adapters the node does have: read by Get-NetAdapter, in the TypeScript interpreter (passPhase on a simulated host)
// and in real pwsh (the facts script groundcrew sends, test/support/real-pwsh-host.ts).

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { POWERSHELL_PRELUDE } from '../../../../src/dataplane/wire.js';
import { windowsFactsScript } from '../../../../src/roles/facts.js';
import { passPhase } from '../../../../src/roles/phase.js';
import { ADAPTER_NAMES_FACT, namedAdapters } from '../../../../src/roles/windows/named-adapters.js';
import { windowsPrereqs } from '../../../../src/roles/windows/prereqs.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { windowsInput } from '../../../support/inputs.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

const overlay = { subnet: '10.42.1.0/24', gateway: '10.42.1.1', prefixLength: 24, routes: [], ports: [], hostAddress: '192.0.2.31' };

describe('the adapters the inventory names', () => {
  it('a WINDOWS_PHYSICAL_INTERFACE the node lacks stalls prereqs first, naming what it has; nothing is changed', async () => {
    const host = WindowsHost.fresh({ hostname: 'hv-b' });
    const outcome = await passPhase(
      new SimExecutor({ host, shells }),
      windowsPrereqs(windowsInput({ node: 'hv-b', physicalInterface: 'Ethernet2' })),
    );
    expect(outcome.failure?.code).toBe('GC_ADAPTER_MISSING');
    expect(outcome.failure?.retryable).toBe(false);
    expect(outcome.failure?.message).toBe(
      'WINDOWS_PHYSICAL_INTERFACE Ethernet2 is not an adapter of hv-b: it has Ethernet0, Ethernet1; nothing was changed',
    );
    // The elevation check passed, the adapters failed, and nothing after them ran: one command (the facts), no change.
    expect(outcome.resources.map((r) => [r.resource, r.status])).toEqual([
      ['session/elevated', 'ok'],
      ['adapters/named', 'failed'],
    ]);
    expect(outcome.commands).toBe(1);
    expect(outcome.rebootRequested).toBe(false);
    expect(host.state.journal).toEqual([]);
  });

  it('names every missing one, the overlay adapter with its own key; an adapter named in another case is found', async () => {
    const host = WindowsHost.fresh({
      hostname: 'hv-b',
      nics: [{ name: 'Ethernet0', ipAddress: '192.0.2.31', prefixLength: 24, origin: 'Manual' }],
    });
    const exec = new SimExecutor({ host, shells });
    const both = await passPhase(exec, windowsPrereqs(windowsInput({ node: 'hv-b', overlay: { ...overlay, adapter: 'Data 2' } })));
    expect(both.failure?.message).toBe(
      'WINDOWS_PHYSICAL_INTERFACE Ethernet1 and overlay_interface Data 2 are not adapters of hv-b: it has Ethernet0; nothing was changed',
    );
    const resource = namedAdapters(windowsInput({ physicalInterface: 'ETHERNET0' }));
    const facts = new Map([[ADAPTER_NAMES_FACT.id, 'Ethernet0']]);
    expect(resource?.test(facts).inDesiredState).toBe(true);
    // A Kubernetes worker without an overlay names no adapter: no check.
    expect(namedAdapters(windowsInput({ roles: ['k8s_node'] }))).toBeUndefined();
  });

  it.each([14393, 17763] as WindowsBuild[])(
    'in real pwsh on Server build %i, Get-NetAdapter lists the adapters the host was built with, and the check says so',
    async (build) => {
      const host = WindowsHost.fresh({
        hostname: 'hv-b',
        build,
        nics: [
          { name: 'Ethernet0', ipAddress: '192.0.2.31', prefixLength: 24, origin: 'Manual' },
          { name: 'Ethernet1', ipAddress: '172.16.0.31', prefixLength: 24, origin: 'Dhcp' },
          { name: 'Ethernet 3', ipAddress: '172.16.1.31', prefixLength: 24, origin: 'Dhcp' },
        ],
      });
      const run = await runInRealPwsh(host, POWERSHELL_PRELUDE + windowsFactsScript([ADAPTER_NAMES_FACT]), { timeoutMs: 240_000 });
      expect(run.exitCode, run.stderr).toBe(0);
      const answer = JSON.parse(run.stdout) as { facts: Record<string, unknown>; failed: Record<string, string> };
      expect(answer.failed).toEqual({});
      expect(answer.facts[ADAPTER_NAMES_FACT.id]).toEqual(['Ethernet0', 'Ethernet1', 'Ethernet 3']);
      const resource = namedAdapters(windowsInput({ node: 'hv-b', physicalInterface: 'Ethernet2' }));
      const facts = new Map(Object.entries(answer.facts));
      expect(resource?.test(facts).differingProperties).toEqual(['WINDOWS_PHYSICAL_INTERFACE Ethernet2']);
      await expect(resource?.set({ exec: new SimExecutor({ host, shells }), facts })).rejects.toThrow(
        'WINDOWS_PHYSICAL_INTERFACE Ethernet2 is not an adapter of hv-b: it has Ethernet0, Ethernet1, Ethernet 3; nothing was changed',
      );
      expect(host.state.journal).toEqual([]);
    },
    300_000,
  );
});
