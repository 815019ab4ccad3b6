// Lab Windows hosts run real PowerShell over real SSH: any script a real node would take, not only what groundcrew
// emits, with the language, error records and $? of the real engine and the state of the simulated host.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Lab } from './lab.js';
import { powershell, ssh } from './ssh.js';

describe('a lab Windows host under real pwsh', () => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await Lab.start({
      hosts: [
        { name: 'w2016', os: 'windows', windows: { build: 14393 } },
        { name: 'w2019', os: 'windows', windows: { build: 17763 } },
      ],
      realPwsh: true,
    });
  }, 120_000);
  afterAll(async () => {
    await lab?.stop();
  });

  it('runs a script groundcrew never emits: a loop, a hashtable, a caught error record of a simulated cmdlet, $?', async () => {
    const script = [
      "$ErrorActionPreference = 'Continue'",
      '$seen = @{}',
      "foreach ($name in 'WinRM', 'nosuchservice', 'sshd') {",
      '  try { $seen[$name] = (Get-Service -Name $name -ErrorAction Stop).Status.ToString() }',
      "  catch { $seen[$name] = $_.CategoryInfo.Category.ToString() + '|' + $_.FullyQualifiedErrorId + '|' + $_.TargetObject }",
      '}',
      'Get-Service -Name nosuchservice 2>$null',
      '$afterFailure = $?',
      "$PSVersionTable.PSEdition + ' ' + $afterFailure",
      '$seen.Keys | Sort-Object | ForEach-Object { "$_=$($seen[$_])" }',
    ].join('\n');
    for (const host of ['w2016', 'w2019']) {
      const r = await powershell(lab, host, script);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      // PSEdition Core: the real engine (the TypeScript interpreter has no $PSVersionTable).
      expect(r.stdout.split(/\r?\n/).filter(Boolean)).toEqual([
        'Core False',
        'nosuchservice=ObjectNotFound|NoServiceFoundForGivenName,Microsoft.PowerShell.Commands.GetServiceCommand,Get-Service|nosuchservice',
        'sshd=Running',
        'WinRM=Running',
      ]);
    }
  }, 120_000);

  it('takes a command line the way Windows OpenSSH with DefaultShell = PowerShell does (pwsh -c)', async () => {
    const r = await ssh(lab, 'w2019', '(Get-Service -Name winrm).Status; exit 7');
    expect(r.stdout.trim()).toBe('Running');
    expect(r.code).toBe(7);
  }, 60_000);

  it('changes the simulated host, and -WhatIf changes nothing', async () => {
    const before = lab.windows('w2019').state.journal.length;
    const r = await powershell(lab, 'w2019', 'Stop-Service -Name winrm -WhatIf\n(Get-Service winrm).Status.ToString()');
    expect(r.stdout).toMatch(/What if: Performing the operation "Stop-Service" on target "winrm"\.\s+Running/);
    expect(lab.windows('w2019').state.journal.length).toBe(before);
    const stop = await powershell(lab, 'w2019', 'Stop-Service -Name winrm; (Get-Service winrm).Status.ToString()');
    expect(stop.stdout.trim()).toBe('Stopped');
    expect(lab.windows('w2019').isRunning('winrm')).toBe(false);
  }, 60_000);

  it('fails loudly where a .NET static would write a Windows path into the Linux working directory', async () => {
    const r = await powershell(lab, 'w2019', "[IO.File]::WriteAllText('C:\\Windows\\Temp\\x.txt', 'hi')");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/wrote .*C:\\Windows\\Temp\\x\.txt.* into pwsh's Linux working directory/);
    expect(lab.windows('w2019').fs.read('C:\\Windows\\Temp\\x.txt')).toBeUndefined();
  }, 60_000);

  it('runs the host programs: sc.exe sets $LASTEXITCODE and $? as a console program does', async () => {
    const r = await powershell(lab, 'w2016', '$ErrorActionPreference = \'Continue\'\nsc.exe query nosuch | Out-Null\n"$LASTEXITCODE $?"');
    // Windows gives 1060; a Linux process's exit status keeps the low 8 bits (1060 % 256 = 36).
    expect(r.stdout.trim()).toBe('36 False');
  }, 60_000);
});
