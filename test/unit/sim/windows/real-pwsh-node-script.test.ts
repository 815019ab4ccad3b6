// An ordinary script, as an operator or a peer's tool writes it for a node, run in real pwsh against a simulated
// host: .NET objects made with the engine's own New-Object, every form of a call (positional, named, splatted,
// pipelined), elevation, the pipe namespace, the certificate store and the registry, each answering as on a node
// (issue 37). Where the answer depends on the host, it is checked against the host's state, not a constant.

import { describe, expect, it } from 'vitest';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';

const lines = (text: string) => text.split(/\r?\n/).filter(Boolean);

/** Docker and the CNM plugin running on Ethernet1 (so \\.\pipe\docker_engine and \\.\pipe\Contrail are served). */
function convergedHost(build: WindowsBuild): WindowsHost {
  const h = WindowsHost.fresh({ hostname: 'win1', build, features: ['Containers', 'Hyper-V'] });
  for (const [name, binaryPath] of [
    ['docker', 'dockerd.exe'],
    ['contrail-cnm-plugin', 'nssm.exe'],
  ] as const)
    h.state.services[name] = { name, displayName: name, status: 'Running', startType: 'Automatic', binaryPath, dependsOn: [] };
  h.fs.put('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-cnm-plugin.conf', '[DRIVER]\r\nAdapter=Ethernet1\r\n');
  // What the vRouter role's Import-Certificate left in LocalMachine\Root.
  h.state.certStores.Root['3F2E9A51C0D4B7A8E6F1029384756ABCDEF01234'] = 'CN=contrail-vrouter-test-signing';
  return h;
}

const SCRIPT = String.raw`
$ErrorActionPreference = 'Stop'
$list = New-Object System.Collections.ArrayList
[void]$list.Add('a'); [void]$list.Add('b')
$sb = New-Object -TypeName System.Text.StringBuilder -ArgumentList 'n='
[void]$sb.Append($list.Count)
$table = New-Object Hashtable
$table['k'] = 'v'
"objects $($sb.ToString()) $($table.Count) $($list -join ',') $($list.GetType().FullName)"
$service = @{ Name = 'docker' }
"service $((Get-Service docker).Status) $((Get-Service -Name docker).Status) $((Get-Service @service).Status) $('docker' | Get-Service | ForEach-Object { $_.Status })"
"switch $((Get-VMSwitch 'Layered?Ethernet1').Name)|$((Get-VMSwitch -Name 'Layered*' | Measure-Object).Count)"
$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
$cast = [System.Security.Principal.WindowsPrincipal][System.Security.Principal.WindowsIdentity]::GetCurrent()
"admin $($principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) $($cast.IsInRole('BUILTIN\Administrators')) $([Security.Principal.WindowsIdentity]::GetCurrent().Name)"
$pipe = New-Object System.IO.Pipes.NamedPipeClientStream('.', 'Contrail')
$pipe.Connect(5000); "pipe Contrail connected $($pipe.IsConnected)"; $pipe.Dispose()
$absent = [System.IO.Pipes.NamedPipeClientStream]::new('.', 'NoSuchPipe')
try { $absent.Connect(300) } catch { "pipe NoSuchPipe $($_.Exception.InnerException.GetType().Name)" } finally { $absent.Dispose() }
"pipes $((Get-ChildItem //./pipe/ | Where-Object Name -eq 'docker_engine').Name) $(@(Get-ChildItem '\\.\pipe\').Count) $(Test-Path '\\.\pipe\Contrail')"
"certs $((Get-ChildItem Cert:\LocalMachine\Root | Select-Object -ExpandProperty Thumbprint) -join ',')"
"registry $((Get-ItemProperty 'HKLM:\SYSTEM\CurrentControlSet\Services\Tcpip\Parameters').Hostname)"
`;

describe('an ordinary script behaves in the lab as on a node (real pwsh, the engine unshadowed)', () => {
  it.each([14393, 17763] as WindowsBuild[])(
    'on build %i',
    async (build) => {
      const host = convergedHost(build);
      const served = host.pipes();
      expect(served).toEqual(expect.arrayContaining(['docker_engine', 'Contrail']));
      const r = await runInRealPwsh(host, SCRIPT);
      expect(r.stderr).toBe('');
      expect(lines(r.stdout)).toEqual([
        'objects n=2 1 a,b System.Collections.ArrayList',
        'service Running Running Running Running',
        'switch Layered Ethernet1|1',
        'admin True True WIN1\\Administrator',
        'pipe Contrail connected True',
        'pipe NoSuchPipe TimeoutException',
        `pipes docker_engine ${served.length} True`,
        'certs 3F2E9A51C0D4B7A8E6F1029384756ABCDEF01234',
        'registry win1',
      ]);
      expect(r.exitCode).toBe(0);
    },
    180_000,
  );

  it('answers a non-administrator session as one: IsInRole(Administrator) is false', async () => {
    const host = convergedHost(17763);
    host.state.elevated = false;
    const r = await runInRealPwsh(
      host,
      [
        '$p = [Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()',
        '"$($p.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) $($p.IsInRole(\'Administrators\')) $($p.IsInRole([Security.Principal.WindowsBuiltInRole]::User))"',
      ].join('\n'),
    );
    expect([r.stderr, ...lines(r.stdout)]).toEqual(['', 'False False True']);
  }, 120_000);

  it('stops serving a pipe when its service stops: the engine connect then times out', async () => {
    const host = convergedHost(17763);
    const r = await runInRealPwsh(
      host,
      [
        "$c = [System.IO.Pipes.NamedPipeClientStream]::new('.', 'docker_engine'); $c.Connect(5000); \"before $($c.IsConnected)\"; $c.Dispose()",
        'Stop-Service docker',
        "$c = [System.IO.Pipes.NamedPipeClientStream]::new('.', 'docker_engine'); try { $c.Connect(300); 'after connected' } catch { 'after timed out' } finally { $c.Dispose() }",
      ].join('\n'),
    );
    expect([r.stderr, ...lines(r.stdout)]).toEqual(['', 'before True', 'after timed out']);
  }, 120_000);
});
