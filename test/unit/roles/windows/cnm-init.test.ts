// Starting the CNM plugin as contrail-windows-ci's Initialize-CnmPluginAndExtension does (issue 28, item 7):
// an address on a DHCP data adapter first, the start retried with cleanup, and the session a single-NIC
// host drops when the switch takes its address (c-a-d's wait_for_connection). On Server 2016 and 2019.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import type { WindowsRoleInput } from '../../../../src/roles/input.js';
import { type PhaseOutcome, passPhase } from '../../../../src/roles/phase.js';
import { cnmPluginInitialized } from '../../../../src/roles/windows/cnm-init.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { convergeSimWindows } from '../../../support/converge-phases.js';
import { windowsInput } from '../../../support/inputs.js';
import { BUILDS } from '../../../support/windows-scripts.js';

let shells: SimShells;
beforeAll(async () => {
  shells = await SimShells.create();
});

/** The node machine's order of the plan's phases on a simulated host; the last pass's outcomes (to a failure). */
const converge = (host: WindowsHost, input: WindowsRoleInput) => convergeSimWindows(host, shells, input, 300);

const failures = (outcomes: PhaseOutcome[]) => outcomes.filter((o) => o.failure).map((o) => `${o.phase}: ${o.failure?.message}`);
const agentConf = (host: WindowsHost) => host.fs.read('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-vrouter-agent.conf') ?? '';
/** A host whose features and signed vRouter need no reboot: the driver phase comes at once. */
const prepared = (build: WindowsBuild) =>
  WindowsHost.fresh({ hostname: 'win1', build, features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } });
const SIGNED = { testSigning: false, signedVrouter: true };

describe.each(BUILDS)('the CNM plugin on Server build %i', (build) => {
  it('waits for the DHCP address of the data adapter before it makes the switch, so the vhost gets it', async () => {
    const host = prepared(build);
    // DHCP answers 1.5 s after the converge starts: well after the driver phase would otherwise start the plugin.
    host.state.faults.dhcpLeaseAt = Date.now() + 1500;
    expect(failures(await converge(host, windowsInput(SIGNED)))).toEqual([]);
    expect(host.state.vhostUnaddressed).toBe(false);
    expect(agentConf(host)).toContain('ip=172.16.0.50/24\r\n');
    expect(host.isRunning('contrail-vrouter-agent')).toBe(true);
  });

  it('retries a start that did not enable the extension, cleaning up between attempts', async () => {
    const host = prepared(build);
    host.state.faults.cnmEnableFailures = 2;
    expect(failures(await converge(host, windowsInput(SIGNED)))).toEqual([]);
    const service = 'contrail-docker-driver';
    expect(host.state.journal.filter((j) => j.includes(service) && /^(start-service|exited|stop-service)/.test(j))).toEqual([
      `start-service ${service}`,
      `exited ${service}: the extension was not enabled`,
      `start-service ${service}`,
      `exited ${service}: the extension was not enabled`,
      `start-service ${service}`,
    ]);
    expect(host.isRunning('contrail-vrouter-agent')).toBe(true);
  });

  it('gives up after three attempts with what each one saw', async () => {
    const host = prepared(build);
    host.state.faults.cnmEnableFailures = 3;
    const [failure] = failures(await converge(host, windowsInput(SIGNED)));
    expect(failure).toMatch(
      /^driver: contrail-docker-driver did not enable the vRouter extension in 3 attempts \(attempt 1: .*is Stopped; attempt 2: .*; attempt 3: /,
    );
  });

  it('repairs a plugin left running with an unaddressed vhost (started before DHCP answered)', async () => {
    const host = prepared(build);
    expect(failures(await converge(host, windowsInput(SIGNED)))).toEqual([]);
    host.state.vhostUnaddressed = true;
    expect(failures(await converge(host, windowsInput(SIGNED)))).toEqual([]);
    expect(host.state.vhostUnaddressed).toBe(false);
    expect(host.isRunning('contrail-vrouter-agent')).toBe(true);
  });

  it('on a single-NIC host the start drops the session; the phase reconnects and goes on', async () => {
    const host = prepared(build);
    const input = windowsInput({ ...SIGNED, physicalInterface: 'Ethernet0' });
    expect(failures(await converge(host, input))).toEqual([]);
    expect(agentConf(host)).toContain('ip=192.0.2.50/24\r\n');
    expect(host.isRunning('contrail-vrouter-agent')).toBe(true);
  });
});

describe('a data adapter DHCP never answers', () => {
  it('the plugin is not started, and the phase says what it waited for', async () => {
    const host = prepared(17763);
    host.state.faults.dhcpLeaseAt = Number.MAX_SAFE_INTEGER;
    const exec = new SimExecutor({ host, shells });
    for (const phase of windowsPlan(windowsInput(SIGNED)).phases.filter((p) => ['prereqs', 'vrouter'].includes(p.name)))
      expect((await passPhase(exec, phase)).failure).toBeUndefined();
    const init = cnmPluginInitialized('Ethernet1', 'contrail-docker-driver', { addressMs: 1000, enabledMs: 1000 });
    const outcome = await passPhase(exec, { name: 'driver', resources: [init] });
    expect(outcome.failure?.message).toMatch(/contrail-docker-driver was not started: an address on Ethernet1 \(DHCP\): not within 1 s/);
    expect(host.state.journal.filter((j) => j.includes('contrail-docker-driver'))).toEqual([]);
  });
});
