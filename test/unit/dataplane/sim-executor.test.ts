// The sim executor: reboots, the Windows command line, latency against timeouts and aborts, and whether a command
// that failed was sent (errors.ts `sent`: the node machine waits for a reboot only when it may have gone out).

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { waitUntil } from '../../support/wait-until.js';

describe('SimExecutor', () => {
  let shells: SimShells;
  beforeAll(async () => {
    shells = await SimShells.create();
  });

  it('a reboot makes the host unreachable, then it returns with a new boot id', async () => {
    const host = LinuxHost.fresh('s1');
    const sim = new SimExecutor({ host, shells, rebootMs: 100 });
    const before = (await sim.run({ script: 'cat /proc/sys/kernel/random/boot_id' }, { timeoutMs: 1000 })).stdout;
    await sim.run({ script: 'reboot' }, { timeoutMs: 1000 });
    await expect(sim.run({ script: 'true' }, { timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'GC_CONNECT',
      retryable: true,
      sent: false,
    });
    // Back, with a new boot id (a command while it reboots is refused, and is tried again).
    await waitUntil(
      'the host back with a new boot id',
      async () => (await sim.run({ script: 'cat /proc/sys/kernel/random/boot_id' }, { timeoutMs: 1000 })).stdout !== before,
    );
    expect(sim.stats.reboots).toBe(1);
  });

  it('Windows hosts get the same command line SSH would carry, with errors made terminating', async () => {
    const sim = new SimExecutor({ host: WindowsHost.fresh({ hostname: 'w1' }), shells });
    const r = await sim.run({ script: "Get-Service -Name 'nope'\n'not reached'" }, { timeoutMs: 1000 });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Cannot find any service with service name 'nope'/);
  });

  it('simulated latency counts against the timeout and can be aborted', async () => {
    const sim = new SimExecutor({ host: LinuxHost.fresh('s2'), shells, latencyMs: 200 });
    // The host runs a command after its latency: one ended during it never ran.
    await expect(sim.run({ script: 'true' }, { timeoutMs: 50 })).rejects.toMatchObject({ code: 'GC_COMMAND_TIMEOUT', sent: false });
    const controller = new AbortController();
    const pending = sim.run({ script: 'true' }, { timeoutMs: 1000, signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'GC_COMMAND_ABORTED', sent: false });
    expect(sim.stats.commands).toBe(0);
  });
});
