// The local, PowerShell and sim executors: results, stdin, timeouts, aborts, reboots, and whether a command that
// failed was sent (errors.ts `sent`: the node machine waits for a reboot only when it may have gone out).

import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalExecutor } from '../../../src/dataplane/local-executor.js';
import { PowerShellExecutor } from '../../../src/dataplane/powershell-executor.js';
import { SimExecutor, SimShells } from '../../../src/dataplane/sim-executor.js';
import { LinuxHost } from '../../../src/sim/linux/linux-host.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const stillRunning = (marker: string) =>
  execFileSync('sh', ['-c', `ps -eo args | grep -c '^sleep ${marker}' || true`], { encoding: 'utf8' }).trim();

describe('LocalExecutor', () => {
  const local = new LocalExecutor();

  it('runs bash with stdin, and keeps stdout, stderr and the exit code', async () => {
    const r = await local.run({ script: 'read -r x; echo "got $x"; echo err >&2; exit 4' }, { timeoutMs: 5000, stdin: 'value\n' });
    expect(r).toMatchObject({ exitCode: 4, stdout: 'got value\n', stderr: 'err\n' });
  });

  it('a timeout kills the whole process group', async () => {
    await expect(local.run({ script: 'sleep 41.5 & sleep 41.5; wait' }, { timeoutMs: 200 })).rejects.toMatchObject({
      code: 'GC_COMMAND_TIMEOUT',
      sent: true,
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(stillRunning('41.5')).toBe('0');
  });

  it('an abort kills it too', async () => {
    const controller = new AbortController();
    const pending = local.run({ script: 'sleep 42.5' }, { timeoutMs: 10_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toMatchObject({ code: 'GC_COMMAND_ABORTED', sent: true });
    await new Promise((r) => setTimeout(r, 100));
    expect(stillRunning('42.5')).toBe('0');
  });

  it('a caller that cancelled first, or a bash that cannot start, sent nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-local-'));
    const marker = join(dir, 'ran');
    await expect(local.run({ script: `touch ${marker}` }, { timeoutMs: 1000, signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'GC_COMMAND_ABORTED',
      sent: false,
    });
    // No bash on the PATH (spawn ENOENT): the 'error' of a process that never started.
    const path = process.env.PATH;
    process.env.PATH = join(dir, 'nothing-here');
    const failing = local.run({ script: `touch ${marker}` }, { timeoutMs: 1000 });
    process.env.PATH = path;
    await expect(failing).rejects.toMatchObject({ code: 'GC_CONNECTION_LOST', sent: false, message: expect.stringMatching(/ENOENT/) });
    expect(existsSync(marker)).toBe(false);
  });
});

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
      code: 'GC_SSH_CONNECT',
      retryable: true,
      sent: false,
    });
    await new Promise((r) => setTimeout(r, 150));
    expect((await sim.run({ script: 'cat /proc/sys/kernel/random/boot_id' }, { timeoutMs: 1000 })).stdout).not.toBe(before);
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

describe('PowerShellExecutor (node-powershell over the pwsh-compatible simulator)', () => {
  const ps = new PowerShellExecutor();

  beforeAll(() => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-psexec-'));
    const wrapper = join(dir, 'pwsh');
    writeFileSync(wrapper, `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist/src/sim/windows/pwsh-sim.js')}" "$@"\n`);
    chmodSync(wrapper, 0o755);
    process.env.NODE_POWERSHELL = wrapper;
    process.env.GC_SIM_STATE = join(dir, 'state.json');
  });
  afterAll(async () => {
    await ps.close();
    delete process.env.NODE_POWERSHELL;
    delete process.env.GC_SIM_STATE;
  });

  it('runs scripts in one persistent session, with stdin as $GcStdin', async () => {
    const r = await ps.run(
      { script: "Set-Service -Name 'winnat' -StartupType Disabled\n(Get-Service -Name 'winnat').StartType.ToString() + ' ' + $GcStdin" },
      { timeoutMs: 5000, stdin: 's3cret' },
    );
    expect(r).toMatchObject({ exitCode: 0, stdout: 'Disabled s3cret' });
  });

  it('a failing script is exit 1 with the error', async () => {
    const r = await ps.run({ script: "Get-Service -Name 'nope'" }, { timeoutMs: 5000 });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Cannot find any service with service name 'nope'/);
  });
});

describe('PowerShellExecutor when the shell goes', () => {
  /** Runs one command on a PowerShellExecutor whose shell is `executable`. */
  async function runWith(executable: string, script: string) {
    const saved = process.env.NODE_POWERSHELL;
    process.env.NODE_POWERSHELL = executable;
    const ps = new PowerShellExecutor();
    try {
      return await ps.run({ script, label: 'reboot' }, { timeoutMs: 5000 }).catch((err: unknown) => err);
    } finally {
      process.env.NODE_POWERSHELL = saved;
      await ps.close();
    }
  }

  it('a shell that cannot start ran nothing: GC_CONNECTION_LOST, not sent', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-psgone-'));
    expect(await runWith(join(dir, 'no-pwsh'), 'Restart-Computer -Force')).toMatchObject({ code: 'GC_CONNECTION_LOST', sent: false });
  });

  it('a shell that ends while the script runs (as a reboot ends it): GC_CONNECTION_LOST, sent, not a failed command', async () => {
    // A stand-in shell that reads the script from its standard input and dies at the line that asks it to.
    const dir = mkdtempSync(join(tmpdir(), 'gc-psgone-'));
    const shell = join(dir, 'pwsh');
    writeFileSync(shell, '#!/bin/sh\nwhile IFS= read -r line; do case "$line" in *Restart-Computer*) exit 7;; esac; done\n');
    chmodSync(shell, 0o755);
    expect(await runWith(shell, 'Restart-Computer -Force')).toMatchObject({ code: 'GC_CONNECTION_LOST', retryable: true, sent: true });
  });
});
