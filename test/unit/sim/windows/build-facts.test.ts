// The facts of a Server 2016 and a Server 2019 compute the simulator holds per build (issue 28), each with
// the source that says so, and the refusals of what it does not model.

import { describe, expect, it } from 'vitest';
import type { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { NOT_RECOGNIZED, simWindows } from '../../../support/sim-windows.js';

const { host, run } = simWindows();

/** A host with Containers and Hyper-V, Docker running and the CNM plugin running on Ethernet1 (its switch made). */
function withSwitch(build: WindowsBuild): WindowsHost {
  const h = host({ build, features: ['Containers', 'Hyper-V'], catalog: { signedVrouter: true } });
  h.state.services.docker = {
    name: 'docker',
    displayName: 'Docker Engine',
    status: 'Running',
    startType: 'Automatic',
    binaryPath: 'dockerd.exe',
    dependsOn: [],
  };
  h.state.services['contrail-cnm-plugin'] = {
    name: 'contrail-cnm-plugin',
    displayName: 'contrail-cnm-plugin',
    status: 'Running',
    startType: 'Manual',
    binaryPath: 'nssm.exe',
    dependsOn: [],
  };
  h.fs.put('C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-cnm-plugin.conf', '[DRIVER]\r\nAdapter=Ethernet1\r\n');
  return h;
}

describe('the vhost adapter (c-a-d 85486b9b "Handle Windows Server 2019 vhost friendly name")', () => {
  it.each([
    [14393, 'vEthernet (HNSTransparent)'],
    [17763, 'vEthernet (Ethernet1)'],
  ] as [WindowsBuild, string][])('on build %i it is %s, and holds the data adapter address', (build, name) => {
    const h = withSwitch(build);
    expect(run(h, "@(Get-NetAdapter | Where-Object { $_.Name -like 'vEthernet*' } | ForEach-Object { $_.Name })").stdout).toBe(
      `${name}\r\n`,
    );
    expect(run(h, `(Get-NetIPAddress -InterfaceAlias '${name}' -AddressFamily IPv4).IPAddress`).stdout).toBe('172.16.0.50\r\n');
  });
});

describe('container networks: Get-ContainerNetwork on 2016 only, Get-HnsNetwork on 2019 (c-a-d, contrail-windows-ci 35ad8cf0)', () => {
  it('on 2016 Get-ContainerNetwork lists ContrailRootNetwork; Get-HnsNetwork needs hns.psm1 imported', () => {
    const h = withSwitch(14393);
    expect(run(h, '@(Get-ContainerNetwork | ForEach-Object { "$($_.Name) $($_.Mode) $($_.NetworkAdapterName)" })').stdout).toBe(
      'ContrailRootNetwork Transparent Ethernet1\r\n',
    );
    expect(run(h, 'Get-HnsNetwork').stderr).toMatch(NOT_RECOGNIZED);
    expect(run(h, '[bool](Get-Command -Name Get-ContainerNetwork -ErrorAction SilentlyContinue)').stdout).toBe('True\r\n');
  });

  it('on 2019 there is no Get-ContainerNetwork; Get-HnsNetwork lists the networks with their adapter', () => {
    const h = withSwitch(17763);
    expect(run(h, 'Get-ContainerNetwork').stderr).toMatch(NOT_RECOGNIZED);
    expect(run(h, '[bool](Get-Command -Name Get-ContainerNetwork -ErrorAction SilentlyContinue)').stdout).toBe('False\r\n');
    expect(run(h, '@(Get-HnsNetwork | ForEach-Object { "$($_.Name) $($_.Type) $($_.NetworkAdapterName)" })').stdout).toBe(
      'ContrailRootNetwork Transparent Ethernet1\r\n',
    );
  });
});

describe('BIOS and UEFI hosts (windows-powershell-docs SecureBoot/Confirm-SecureBootUEFI.md)', () => {
  it('a UEFI host answers whether Secure Boot is on; a BIOS host fails "Cmdlet not supported on this platform"', () => {
    expect(run(host({ secureBoot: true }), 'Confirm-SecureBootUEFI').stdout).toBe('True\r\n');
    expect(run(host(), 'Confirm-SecureBootUEFI').stdout).toBe('False\r\n');
    const bios = run(host({ firmware: 'BIOS' }), 'Confirm-SecureBootUEFI');
    expect(bios.exitCode).toBe(1);
    expect(bios.stderr).toMatch(/^Confirm-SecureBootUEFI : Cmdlet not supported on this platform/);
  });
});

describe('the signed vRouter image (c-a-d contrail_vrouter_windows: contrail-windows-vrouter-signed)', () => {
  it('is served only where the registry carries it', () => {
    const pull = (h: WindowsHost) => {
      run(
        h,
        "Install-PackageProvider -Name 'NuGet' -MinimumVersion '2.8.5.201' -Force | Out-Null; Install-Module -Name 'DockerMsftProvider' -Repository 'PSGallery' -Force",
      );
      run(
        h,
        "Install-Package -Name docker -ProviderName DockerMsftProvider -RequiredVersion '18.09' -Force | Out-Null; Start-Service -Name docker",
      );
      return run(h, "docker pull 'opencontrailnightly/contrail-windows-vrouter-signed:5.0.1'\nexit $LASTEXITCODE");
    };
    expect(pull(host({ features: ['Containers'], catalog: { signedVrouter: true } })).exitCode).toBe(0);
    expect(pull(host({ features: ['Containers'] })).stderr).toMatch(/manifest unknown/);
  });
});

describe('what the diagnostic check runs, and nothing more', () => {
  it('New-Object makes a NamedPipeClientStream to this host only; other types are refused by name', () => {
    const h = withSwitch(17763);
    const connect = (pipe: string) =>
      run(
        h,
        `$c = New-Object -TypeName System.IO.Pipes.NamedPipeClientStream -ArgumentList '.', '${pipe}'\ntry { $c.Connect(1000); 'connected' } catch { $_.Exception.Message } finally { $c.Dispose() }`,
      ).stdout;
    expect(connect('Contrail')).toBe('connected\r\n');
    expect(connect('NoSuchPipe')).toMatch(/The operation has timed out/);
    expect(run(h, 'New-Object -TypeName System.Net.WebClient').stderr).toMatch(/not modelled|NotSupportedBySimulator|simulator/i);
  });

  it('Test-NetConnection connects to a local port; another host is refused by name', () => {
    const h = withSwitch(17763);
    expect(run(h, '(Test-NetConnection -ComputerName localhost -Port 9091).TcpTestSucceeded').stdout).toBe('False\r\n');
    expect(run(h, 'Test-NetConnection -ComputerName 192.0.2.10 -Port 8082').stderr).toMatch(
      /not modelled|NotSupportedBySimulator|simulator/i,
    );
  });
});
