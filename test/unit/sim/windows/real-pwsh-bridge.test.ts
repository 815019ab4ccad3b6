// The real-pwsh bridge without SSH (test/support/real-pwsh-host.ts): real pwsh 7.6.9 binds and runs, the simulated
// host answers the Windows cmdlets and programs, per build.

import { describe, expect, it } from 'vitest';
import { stdinOf, writeFromStdin } from '../../../../src/roles/windows/write-from-stdin.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';

const lines = (text: string) => text.split(/\r?\n/).filter(Boolean);

describe('real pwsh over a simulated Windows host', () => {
  it('gives the simulated objects their real type names, enums and 5.1 parameter binding', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const r = await runInRealPwsh(
      host,
      [
        "$s = Get-Service 'WinRM'",
        '$s.PSTypeNames[0]',
        '$s.Status.GetType().FullName',
        '[int]$s.Status',
        // Get-Service's Name is positional (5.1 metadata); -ServiceName its alias.
        '(Get-Service -ServiceName sshd).Name',
        'Get-Service | Select-Object -First 1 -ExpandProperty Name',
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    expect(lines(r.stdout)).toEqual([
      'System.ServiceProcess.ServiceController',
      'System.ServiceProcess.ServiceControllerStatus',
      '4',
      'sshd',
      'winnat',
    ]);
  }, 120_000);

  it("declares each build's own parameters: Get-NetRoute has -State and -InterfaceMetric on 2019, not on 2016", async () => {
    const script =
      "$p = (Get-Command Get-NetRoute).Parameters; \"$($p.ContainsKey('State')) $($p.ContainsKey('InterfaceMetric')) $($p.ContainsKey('DestinationPrefix'))\"";
    const w2016 = await runInRealPwsh(WindowsHost.fresh({ hostname: 'w', build: 14393 }), script);
    const w2019 = await runInRealPwsh(WindowsHost.fresh({ hostname: 'w', build: 17763 }), script);
    expect([w2016.stdout.trim(), w2019.stdout.trim()]).toEqual(['False False True', 'True True True']);
  }, 120_000);

  it('-WhatIf asks ShouldProcess and leaves the host alone; without it the host changes', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const whatIf = await runInRealPwsh(
      host,
      'Install-WindowsFeature -Name Containers -WhatIf | Out-Null\nStop-Service -Name WinRM -WhatIf',
    );
    expect(whatIf.stdout).toMatch(/What if: Performing the operation "Stop-Service" on target "WinRM"/);
    expect(host.state.features.Containers).toBe('Available');
    expect(host.isRunning('WinRM')).toBe(true);
    expect(host.state.journal).toEqual([]);
    const real = await runInRealPwsh(host, 'Stop-Service -Name WinRM');
    expect(real.exitCode).toBe(0);
    expect(host.isRunning('WinRM')).toBe(false);
  }, 120_000);

  it('turns a simulated error into a real error record: non-terminating, catchable with -ErrorAction Stop, $? false', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const r = await runInRealPwsh(
      host,
      [
        'Get-Service -Name nosuch -ErrorAction SilentlyContinue',
        '"after: $?"',
        'try { Get-Service -Name nosuch -ErrorAction Stop; "not reached" }',
        'catch { $_.CategoryInfo.Category.ToString(); $_.CategoryInfo.Reason; $_.TargetObject; $_.FullyQualifiedErrorId }',
      ].join('\n'),
    );
    expect(lines(r.stdout)).toEqual([
      'after: False',
      'ObjectNotFound',
      'ServiceCommandException',
      'nosuch',
      'NoServiceFoundForGivenName,Microsoft.PowerShell.Commands.GetServiceCommand,Get-Service',
    ]);
  }, 120_000);

  it('has Hyper-V cmdlets only where the feature and its tools are, and HNS on 2016 only after Import-Module hns.psm1', async () => {
    const bare = await runInRealPwsh(
      WindowsHost.fresh({ hostname: 'w' }),
      '(Get-Command Get-VMSwitch -ErrorAction SilentlyContinue) -eq $null',
    );
    expect(bare.stdout.trim()).toBe('True');
    const hyperV = await runInRealPwsh(
      WindowsHost.fresh({ hostname: 'w', features: ['Hyper-V'] }),
      '(Get-Command Get-VMSwitch).CommandType.ToString()',
    );
    expect(hyperV.stdout.trim()).toBe('Function');
    const w2016 = WindowsHost.fresh({ hostname: 'w', build: 14393, features: ['Containers'] });
    w2016.fs.put('C:\\Program Files\\hns.psm1', 'module');
    const hns = await runInRealPwsh(
      w2016,
      [
        'try { Get-HnsNetwork } catch { $_.FullyQualifiedErrorId }',
        "Import-Module 'C:\\Program Files\\hns.psm1'",
        '@(Get-HnsNetwork).Count',
      ].join('\n'),
    );
    expect(lines(hns.stdout)).toEqual(['CommandNotFoundException', '0']);
  }, 120_000);

  it('runs the host programs as console programs ($LASTEXITCODE, $?) and msiexec as a GUI one (no $LASTEXITCODE)', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const r = await runInRealPwsh(
      host,
      [
        "sc.exe query WinRM | Select-String -Pattern 'STATE' | ForEach-Object { $_.Line.Trim() }",
        '"$LASTEXITCODE $?"',
        'sc.exe query nosuch | Out-Null',
        '"$LASTEXITCODE $?"',
        '$LASTEXITCODE = 5',
        "& msiexec.exe /i 'C:\\none.msi' /qn",
        '"$LASTEXITCODE"',
      ].join('\n'),
    );
    expect(lines(r.stdout)).toEqual(['STATE              : 4  RUNNING', '0 True', '36 False', '5']);
  }, 120_000);

  it('fails loudly when a .NET static writes a Windows path into the Linux working directory', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const r = await runInRealPwsh(host, "[IO.File]::WriteAllText('C:\\x.txt', 'hi')");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/wrote "C:\\\\x\.txt" into pwsh's Linux working directory/);
    expect(host.fs.read('C:\\x.txt')).toBeUndefined();
  }, 120_000);

  it('writes a file from stdin as the roles do: Set-Content -Encoding Byte of [Convert]::FromBase64String', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const text = '[DEFAULT]\nlog_level = SYS_NOTICE\n';
    const r = await runInRealPwsh(
      host,
      `New-Item -ItemType Directory -Force -Path 'C:\\x' | Out-Null\n${writeFromStdin('C:\\x\\a.conf')}`,
      stdinOf(text),
    );
    expect(r.stderr).toBe('');
    expect(host.fs.read('C:\\x\\a.conf')).toBe(text);
    expect(host.state.journal).toContain('write C:\\x\\a.conf');
  }, 120_000);

  it('reads standard input as the roles pass secrets, and reports a requested reboot', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const r = await runInRealPwsh(host, '[Console]::In.ReadToEnd().Trim()\nRestart-Computer -Force', 's3cret\n');
    expect(r.stdout.trim()).toBe('s3cret');
    expect(r.rebootRequested).toBe(true);
  }, 120_000);

  it("makes the engine's own NamedPipeClientStream with New-Object: Connect and Dispose, as the verify phase does", async () => {
    // verify.ts' PIPE_SERVES: a client connect to \\.\pipe\Contrail within a second. No CNM plugin here, so no pipe
    // (no socket in the session's TMPDIR): .NET's Connect times out, wrapped by pwsh as a method's exception.
    const script = [
      "$c = New-Object -TypeName System.IO.Pipes.NamedPipeClientStream -ArgumentList '.', 'Contrail'",
      '$c.PSTypeNames[0]',
      "try { $c.Connect(1000); 'connected' } catch { $_.Exception.GetType().Name; $_.Exception.Message } finally { $c.Dispose() }",
      // A void method puts nothing in the pipeline (verify's `$c.Connect(1000); $true` must be $true alone).
      '@($c.Dispose()).Count',
      "'disposed'",
    ].join('\n');
    const host = WindowsHost.fresh({ hostname: 'w' });
    const absent = await runInRealPwsh(host, script);
    // (A served pipe's Connect returns: the lab's roles test and the e2e stories' verify phase need it.)
    expect([absent.stderr, ...lines(absent.stdout)]).toEqual([
      '',
      'System.IO.Pipes.NamedPipeClientStream',
      'MethodInvocationException',
      'Exception calling "Connect" with "1" argument(s): "The operation has timed out."',
      '0',
      'disposed',
    ]);
  }, 120_000);
});
