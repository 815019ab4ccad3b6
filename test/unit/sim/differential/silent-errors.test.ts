// The simulator's silent errors that issue 27 lists under "Why", each run in real PowerShell (pwsh 7.6.9 over the
// same simulated host state, test/support/real-pwsh-host.ts) and in the TypeScript interpreter. Each test failed on
// the simulator before these fixes: it made the change under -WhatIf, called a bareword list a parse error,
// answered -Wait with "a parameter cannot be found", refused a wildcard adapter name, answered names it does not
// model with Windows' own "not found", and set $LASTEXITCODE to 0 after a GUI program.

import { beforeAll, describe, expect, it } from 'vitest';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../../../src/sim/windows/windows-shell.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';

let shell: WindowsShell;
beforeAll(async () => {
  shell = await WindowsShell.create();
});

const fresh = () => WindowsHost.fresh({ hostname: 'win1' });
const lines = (text: string) => text.split(/\r?\n/).filter(Boolean);
const REFUSED = /FullyQualifiedErrorId : NotSupportedBySimulator/;

/** The script in both engines, each on its own copy of the same fresh host. */
async function both(script: string) {
  const [realHost, simHost] = [fresh(), fresh()];
  const real = await runInRealPwsh(realHost, script);
  const sim = shell.runScript(simHost, script);
  return { real, realHost, sim, simHost };
}

describe('silent errors of the simulator, against real PowerShell', () => {
  it('-WhatIf: real PowerShell makes no change; the simulator refuses by name instead of making it', async () => {
    const r = await both('Install-WindowsFeature -Name Containers -WhatIf | Out-Null\nStop-Service -Name WinRM -WhatIf');
    expect(r.real.stdout).toMatch(/What if: Performing the operation "Stop-Service" on target "WinRM"/);
    expect(r.realHost.state.journal).toEqual([]);
    expect(r.sim.stderr).toMatch(/-WhatIf on Install-WindowsFeature \(ShouldProcess\) is outside the simulated subset/);
    expect(r.sim.stderr).toMatch(REFUSED);
    expect(r.simHost.state.journal).toEqual([]);
    expect(r.simHost.state.features.Containers).toBe('Available');
    expect(r.simHost.isRunning('WinRM')).toBe(true);
  }, 300_000);

  it('bareword lists and a wildcard adapter name: the same output and the same host state in both engines', async () => {
    const script = [
      'Set-NetFirewallProfile -Profile Domain,Public,Private -Enabled False',
      'Write-Output a,b,c',
      '(Get-NetFirewallProfile -Name Public).Enabled',
      "Get-NetAdapter -Name 'Eth*' | ForEach-Object Name",
    ].join('\n');
    const r = await both(script);
    expect(r.real.exitCode).toBe(0);
    expect(lines(r.real.stdout)).toEqual(['a', 'b', 'c', 'False', 'Ethernet0', 'Ethernet1']);
    expect(r.sim).toMatchObject({ stderr: '', exitCode: 0 });
    expect(lines(r.sim.stdout)).toEqual(lines(r.real.stdout));
    expect(r.simHost.state.firewall).toEqual(r.realHost.state.firewall);
    expect(r.simHost.state.journal).toEqual(r.realHost.state.journal);
  }, 300_000);

  it('Restart-Computer -Wait: a real parameter, so the simulator refuses it by name rather than "cannot be found"', async () => {
    const r = await both('Restart-Computer -Wait -Force');
    expect(r.real.stderr).not.toMatch(/A parameter cannot be found/);
    expect(r.sim.stderr).not.toMatch(/A parameter cannot be found/);
    expect(r.sim.stderr).toMatch(/the parameter -Wait of Restart-Computer is outside the simulated subset/);
    expect(r.sim.exitCode).toBe(1);
    expect(r.simHost.rebootRequested).toBe(false);
  }, 300_000);

  it.each([
    ['a Windows feature', 'Install-WindowsFeature -Name Web-Server', /the Windows feature 'Web-Server' is not modelled/],
    ['a registry key', "Test-Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion'", /the registry key .* is not modelled/],
    ['a bcdedit element', "bcdedit /set '{current}' hypervisorlaunchtype auto", /hypervisorlaunchtype auto .*is not modelled/],
  ])(
    '%s the simulator does not model: refused in both engines, never Windows\' "not found"',
    async (_what, script, refusal) => {
      const r = await both(script);
      for (const result of [r.sim, r.real]) {
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toMatch(refusal);
        expect(result.stderr).not.toMatch(/not valid|Cannot find path|parameter is incorrect/);
      }
      expect(r.sim.stderr).toMatch(REFUSED);
    },
    300_000,
  );

  it('a GUI program (& msiexec) leaves $LASTEXITCODE unset and $? as it was', async () => {
    const r = await both('& msiexec /i C:\\nope.msi /qn\n$null -eq $LASTEXITCODE\n$?');
    expect(lines(r.sim.stdout)).toEqual(['True', 'True']);
    expect(lines(r.real.stdout)).toEqual(['True', 'True']);
  }, 300_000);
});
