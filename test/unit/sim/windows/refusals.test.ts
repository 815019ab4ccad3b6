// The simulated Windows host refuses what Windows Server refuses and answers as it answers: one test per
// behaviour issue 17 found the simulator getting wrong, each with the source of the fact.

import { describe, expect, it } from 'vitest';
import { catalogued } from '../../../../src/sim/windows/catalogued.js';
import type { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { NOT_RECOGNIZED, simWindows } from '../../../support/sim-windows.js';

const { host, run } = simWindows();
const PROVIDERS =
  "Install-PackageProvider -Name 'NuGet' -MinimumVersion '2.8.5.201' -Force | Out-Null\nInstall-Module -Name 'DockerMsftProvider' -Repository 'PSGallery' -Force";

describe('refusals and answers as Windows Server gives them', () => {
  // Windows says "ArgumentNotValid: ... The name was not found." for a name it lacks; the simulator holds only the
  // features the roles touch, so a name it lacks may be a real feature: refused by name (issue 27), all or nothing.
  it('Install-WindowsFeature of a name the simulator does not hold is refused: no result, nothing installed', () => {
    const h = host();
    const r = run(h, "Install-WindowsFeature -Name 'Containers','Bogus'");
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/the Windows feature 'Bogus' is not modelled/);
    expect(r.stderr).toMatch(/FullyQualifiedErrorId : NotSupportedBySimulator/);
    expect(h.state.features.Containers).toBe('Available');
  });

  it('Start-Process of any program returns its exit code (cmd.exe /c "exit 5" is 5)', () => {
    const r = run(host(), "$p = Start-Process -FilePath 'cmd.exe' -ArgumentList '/c \"exit 5\"' -Wait -PassThru\n$p.ExitCode");
    expect(r).toMatchObject({ exitCode: 0, stdout: '5\r\n' });
    const missing = run(host(), "Start-Process -FilePath 'C:\\nowhere\\tool.exe' -Wait");
    expect(missing.stderr).toMatch(/The system cannot find the file specified/);
  });

  it('bcdedit /set testsigning on, with no identifier (c-a-d: Bcdedit.exe -set TESTSIGNING ON), changes {current}', () => {
    const h = host();
    expect(run(h, 'bcdedit /set testsigning on')).toMatchObject({ exitCode: 0, stdout: 'The operation completed successfully.\r\n' });
    expect(h.state.bcdTestSigning).toBe(true);
    const other = host();
    expect(run(other, 'Bcdedit.exe -set TESTSIGNING ON').exitCode).toBe(0);
    expect(other.state.bcdTestSigning).toBe(true);
  });

  it('Install-Package fails while its provider is not installed; NuGet must come before the provider module', () => {
    const h = host({ features: ['Containers'] });
    const r = run(h, "Install-Package -Name 'docker' -ProviderName 'DockerMsftProvider' -Force");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Unable to find package provider 'DockerMsftProvider'/);
    expect(h.state.docker).toBeUndefined();
    const early = run(h, "Install-Module -Name 'DockerMsftProvider' -Repository 'PSGallery' -Force");
    expect(early.stderr).toMatch(/NuGet provider is required/);
    expect(run(h, `${PROVIDERS}\nInstall-Package -Name 'docker' -ProviderName 'DockerMsftProvider' -Force | Out-Null`).exitCode).toBe(0);
    expect(h.state.docker).toBeDefined();
  });

  it('docker pull from a registry the host cannot reach fails, as Docker does', () => {
    const h = host({ features: ['Containers'] });
    run(h, `${PROVIDERS}\nInstall-Package -Name 'docker' -ProviderName 'DockerMsftProvider' -Force | Out-Null\nStart-Service -Name docker`);
    const r = run(h, "docker pull 'registry.unreachable.example:5000/contrail-windows-vrouter:5.0.1'\nexit $LASTEXITCODE");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/dial tcp: lookup registry\.unreachable\.example: no such host/);
    expect(h.state.images).toEqual([]);
  });

  it('the Hyper-V cmdlets exist only after Hyper-V was installed with its management tools', () => {
    const bare = host();
    run(bare, "Install-WindowsFeature -Name 'Hyper-V' | Out-Null");
    bare.reboot();
    expect(run(bare, 'Get-VMSwitch').stderr).toMatch(NOT_RECOGNIZED);
    const tools = host();
    run(tools, "Install-WindowsFeature -Name 'Hyper-V' -IncludeManagementTools | Out-Null");
    tools.reboot();
    expect(run(tools, 'Get-VMSwitch')).toMatchObject({ exitCode: 0, stderr: '' });
  });

  it('Get-HnsNetwork: on Server 2016 only after Import-Module hns.psm1 in the same session; on 2019 with Containers', () => {
    const s2016 = host({ build: 14393, features: ['Containers'] });
    expect(run(s2016, 'Get-HnsNetwork').stderr).toMatch(NOT_RECOGNIZED);
    s2016.fs.put('C:\\k\\hns.psm1', '# microsoft/SDN Kubernetes/windows/hns.psm1');
    expect(run(s2016, "Import-Module 'C:\\k\\hns.psm1'\nGet-HnsNetwork")).toMatchObject({ exitCode: 0, stderr: '' });
    expect(run(s2016, 'Get-HnsNetwork').stderr).toMatch(NOT_RECOGNIZED);
    expect(run(host({ features: ['Containers'] }), 'Get-HnsNetwork')).toMatchObject({ exitCode: 0, stderr: '' });
    expect(run(host(), 'Get-HnsNetwork').stderr).toMatch(NOT_RECOGNIZED);
  });

  it('package providers exist only once installed', () => {
    const h = host();
    expect(run(h, "Get-PackageProvider -Name 'NuGet'").stderr).toMatch(/Unable to find package provider 'NuGet'/);
    run(h, "Install-PackageProvider -Name 'NuGet' -MinimumVersion '2.8.5.201' -Force | Out-Null");
    expect(run(h, "(Get-PackageProvider -Name 'NuGet').Name").stdout).toBe('NuGet\r\n');
  });

  it('Server 2016 (14393) and 2019 (17763) say which they are', () => {
    const version = (h: WindowsHost) => run(h, "(Get-CimInstance -ClassName 'Win32_OperatingSystem').Version").stdout.trim();
    expect(version(host({ build: 14393 }))).toBe('10.0.14393');
    expect(version(host())).toBe('10.0.17763');
  });

  it('under Secure Boot bcdedit refuses testsigning, and Confirm-SecureBootUEFI says so', () => {
    const h = host({ secureBoot: true });
    const r = run(h, 'bcdedit /set testsigning on\nexit $LASTEXITCODE');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/The value is protected by Secure Boot policy and cannot be modified or deleted\./);
    expect(h.state.bcdTestSigning).toBe(false);
    expect(run(h, 'Confirm-SecureBootUEFI').stdout).toBe('True\r\n');
  });

  it('an unelevated session: bcdedit cannot open the store, features cannot be installed, whoami shows Medium', () => {
    const h = host({ elevated: false });
    expect(run(h, "bcdedit /enum '{current}'\nexit $LASTEXITCODE")).toMatchObject({ exitCode: 1 });
    expect(run(h, "bcdedit /enum '{current}'").stderr).toMatch(/could not be opened\.\r\nAccess is denied\./);
    expect(run(h, "Install-WindowsFeature -Name 'Containers'").stderr).toMatch(/The requested operation requires elevation\./);
    expect(run(h, 'whoami /groups').stdout).toMatch(/Medium Mandatory Level.*S-1-16-8192/);
    expect(run(host(), 'whoami /groups').stdout).toMatch(/High Mandatory Level.*S-1-16-12288/);
  });

  it('a parameter outside the catalogue cannot be declared, and a call must fit one parameter set of the reference page', () => {
    const spec = { name: 'Get-NetNat', params: { Name: { type: 'string[]' as const }, Bogus: { type: 'switch' as const } }, run: () => [] };
    expect(() => catalogued(spec)).toThrow(/declares -Bogus, which its reference page \(.*Get-NetNat\.md\) does not have/);
    expect(() => catalogued({ ...spec, name: 'Get-Nothing', params: {} })).toThrow(/no entry in the cmdlet catalogue/);
    const r = run(host(), "Test-Path -Path 'C:\\a' -LiteralPath 'C:\\b'");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/Parameter set cannot be resolved using the specified named parameters\./);
  });
});
