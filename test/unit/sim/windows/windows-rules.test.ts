// The Windows rules the roles depend on, in the in-process simulator (the lab test repeats the key ones over SSH).

import { beforeAll, describe, expect, it } from 'vitest';
import { parseVifList } from '../../../../src/roles/windows/parsers.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../../../src/sim/windows/windows-shell.js';

let shell: WindowsShell;
beforeAll(async () => {
  shell = await WindowsShell.create();
});

function ps(host: WindowsHost, script: string): string {
  const r = shell.runScript(host, `$ErrorActionPreference = 'Stop'\n${script}`);
  if (r.exitCode !== 0) throw new Error(`script failed (${r.exitCode}):\n${script}\n${r.stderr}`);
  return r.stdout.trim();
}

const msi = (host: WindowsHost, path: string, action = '/i') =>
  Number(
    ps(
      host,
      `$p = Start-Process -FilePath 'msiexec.exe' -ArgumentList @('${action}', '${path}', '/qn', '/norestart', '/l*v', 'C:\\Windows\\Temp\\msi.log') -Wait -PassThru\n$p.ExitCode`,
    ),
  );

/** A host with features, Docker and the vRouter artifacts of `version`, as the prereqs phase leaves it. */
function prepared(version = '5.0.1', options: { signed?: boolean } = {}): WindowsHost {
  const host = WindowsHost.fresh({
    hostname: 'win1',
    features: ['Containers', 'Hyper-V'],
    catalog: { signedVrouter: options.signed ?? false },
  });
  ps(host, PROVIDERS);
  ps(host, "Install-Package -Name docker -ProviderName DockerMsftProvider -RequiredVersion '18.09' -Force | Out-Null");
  ps(host, "New-Item -ItemType Directory -Path 'C:\\ProgramData\\docker\\config' -Force | Out-Null");
  ps(host, 'Set-Content -Path \'C:\\ProgramData\\docker\\config\\daemon.json\' -Value \'{"bridge":"none"}\'');
  ps(host, 'Start-Service -Name docker');
  // The production-signed build is its own image (c-a-d's contrail-windows-vrouter-signed).
  const image = `opencontrailnightly/contrail-windows-vrouter${options.signed ? '-signed' : ''}:${version}`;
  ps(host, `docker pull '${image}' | Out-Null`);
  ps(host, `docker run --rm -v 'C:\\Artifacts:C:\\Artifacts' '${image}' | Out-Null`);
  return host;
}

/** NuGet, then DockerMsftProvider: Install-Package has no such provider before (package-providers.ts). */
const PROVIDERS =
  "Install-PackageProvider -Name 'NuGet' -MinimumVersion '2.8.5.201' -Force | Out-Null; Install-Module -Name 'DockerMsftProvider' -Repository 'PSGallery' -Force";

function trustCertificate(host: WindowsHost): void {
  for (const store of ['Root', 'TrustedPublisher']) {
    ps(
      host,
      `Import-Certificate -FilePath 'C:\\Artifacts\\vrouter\\vRouter.cer' -CertStoreLocation 'Cert:\\LocalMachine\\${store}' | Out-Null`,
    );
  }
}

describe('features and reboots', () => {
  it('a feature install is pending until a reboot, and asks for one', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    const result = JSON.parse(ps(host, "Install-WindowsFeature -Name 'Containers','Hyper-V' | ConvertTo-Json -Compress"));
    expect(result).toMatchObject({ Success: true, RestartNeeded: 'Yes' });
    expect(ps(host, "(Get-WindowsFeature -Name 'Containers').InstallState.ToString()")).toBe('InstallPending');
    expect(
      ps(host, "Test-Path -Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Component Based Servicing\\RebootPending'"),
    ).toBe('True');
    const before = ps(host, "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToString('o')");
    host.reboot(new Date(Date.now() + 60_000));
    expect(ps(host, "(Get-WindowsFeature -Name 'Containers').InstallState.ToString()")).toBe('Installed');
    expect(ps(host, "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToString('o')")).not.toBe(before);
    expect(
      ps(host, "Test-Path -Path 'HKLM:\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Component Based Servicing\\RebootPending'"),
    ).toBe('False');
  });

  it('Docker cannot be installed before the Containers feature', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    ps(host, PROVIDERS);
    expect(() => ps(host, "Install-Package -Name docker -ProviderName DockerMsftProvider -RequiredVersion '18.09' -Force")).toThrow(
      /Containers feature is not installed/,
    );
  });

  it('Docker without "bridge":"none" makes a NAT network; with it, none', () => {
    const host = WindowsHost.fresh({ hostname: 'win1', features: ['Containers'] });
    ps(host, PROVIDERS);
    ps(
      host,
      "Install-Package -Name docker -ProviderName DockerMsftProvider -RequiredVersion '18.09' -Force | Out-Null; Start-Service -Name docker",
    );
    expect(ps(host, '@(Get-HnsNetwork).Count')).toBe('1');
    expect(ps(host, '@(Get-NetNat).Count')).toBe('1');
    ps(host, "Get-HnsNetwork | Where-Object { $_.Name -eq 'nat' } | Remove-HnsNetwork\nRemove-NetNat -Name 'nat' -Confirm:$false");
    expect(ps(host, '@(Get-HnsNetwork).Count')).toBe('0');
  });
});

describe('test signing and the unsigned vRouter', () => {
  it('test signing is configured by bcdedit but active only after a reboot', () => {
    const host = WindowsHost.fresh({ hostname: 'win1' });
    ps(host, "bcdedit /set '{current}' testsigning on | Out-Null");
    expect(ps(host, "(bcdedit /enum '{current}') -match 'testsigning'")).toBe('testsigning             Yes');
    expect(
      ps(host, "(Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control' -Name 'SystemStartOptions').SystemStartOptions"),
    ).not.toMatch(/TESTSIGNING/);
    host.reboot();
    expect(
      ps(host, "(Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control' -Name 'SystemStartOptions').SystemStartOptions"),
    ).toMatch(/TESTSIGNING/);
  });

  it('the unsigned vRouter MSI fails with 1603 until its certificate is trusted and test signing is active', () => {
    const host = prepared();
    expect(msi(host, 'C:\\Artifacts\\vrouter\\vRouter.msi')).toBe(1603);
    expect(ps(host, "Get-Content -Path 'C:\\Windows\\Temp\\msi.log' -Tail 3")).toMatch(/not trusted/);
    trustCertificate(host);
    ps(host, "bcdedit /set '{current}' testsigning on | Out-Null");
    expect(msi(host, 'C:\\Artifacts\\vrouter\\vRouter.msi')).toBe(1603);
    expect(ps(host, "Get-Content -Path 'C:\\Windows\\Temp\\msi.log' -Raw")).toMatch(/test signing is not active/);
    host.reboot();
    expect(msi(host, 'C:\\Artifacts\\vrouter\\vRouter.msi')).toBe(0);
    // vrouter_msi.wxs fixes Name="vRouter" Version="1.0.0": every Contrail build registers the same (msi-products.ts).
    expect(ps(host, "(Get-Package -ProviderName 'msi' -Name 'vRouter').Version")).toBe('1.0.0');
  });

  it('a production-signed vRouter installs with neither', () => {
    const host = prepared('5.0.1', { signed: true });
    expect(msi(host, 'C:\\Artifacts\\vrouter\\vRouter.msi')).toBe(0);
  });
});

describe('the vRouter utilities MSI (contrail-vrouter utils/windows/utils_msi.wxs)', () => {
  it('installs its full program set; the programs the simulator does not model refuse their run by name', () => {
    const host = prepared('5.0.1');
    const programs = ['vif', 'rt', 'nh', 'mpls', 'flow', 'vrfstats', 'dropstats', 'vxlan', 'vrouter', 'vrmemstats', 'mirror', 'vtest'];
    const present = () =>
      ps(host, programs.map((p) => `Test-Path 'C:\\Program Files\\Juniper Networks\\vrouter\\${p}.exe'`).join('; ')).split(/\r?\n/);
    expect(present()).toEqual(programs.map(() => 'False'));
    expect(shell.runScript(host, 'nh --list').stderr).toMatch(/'nh' is not recognized/);
    expect(msi(host, 'C:\\Artifacts\\vrouter\\utils.msi')).toBe(0);
    expect(present()).toEqual(programs.map(() => 'True'));
    expect(shell.runScript(host, 'nh --list').stderr).toMatch(/nh\.exe --list[\s\S]*NotSupportedBySimulator/);
  });
});

describe('MSI exit codes', () => {
  it('another build installed: 1638 (the same product code and version); uninstall first, then the downgrade installs', () => {
    const host = prepared('5.0.2');
    expect(msi(host, 'C:\\Artifacts\\vrouter\\utils.msi')).toBe(0);
    ps(host, "docker run --rm -v 'C:\\Artifacts:C:\\Artifacts' 'opencontrailnightly/contrail-windows-vrouter:5.0.1' | Out-Null");
    expect(msi(host, 'C:\\Artifacts\\vrouter\\utils.msi')).toBe(1638);
    const code = ps(host, "(Get-Package -ProviderName 'msi' -Name 'vRouter utilities').FastPackageReference");
    expect(code).toBe('{299D687A-3C91-4202-92D2-47C83FD7122D}');
    expect(msi(host, code, '/x')).toBe(0);
    expect(msi(host, code, '/x')).toBe(1605);
    expect(msi(host, 'C:\\Artifacts\\vrouter\\utils.msi')).toBe(0);
    expect(ps(host, "(Get-Package -ProviderName 'msi' -Name 'vRouter utilities').Version")).toBe('0.0.1');
    expect(host.state.journal.filter((j) => j.startsWith('msi-'))).toEqual([
      'msi-install vRouter utilities 5.0.2',
      'msi-uninstall vRouter utilities 5.0.2',
      'msi-install vRouter utilities 5.0.1',
    ]);
  });

  it('1618 while another install runs, 3010 when the MSI asks for a reboot, 1603 for a failing MSI', () => {
    const host = prepared();
    host.state.faults = { busyMsi: 1, rebootMsi: ['utils.msi'], failMsi: ['contrail-vrouter-agent.msi'] };
    expect(msi(host, 'C:\\Artifacts\\vrouter\\utils.msi')).toBe(1618);
    expect(msi(host, 'C:\\Artifacts\\vrouter\\utils.msi')).toBe(3010);
    expect(ps(host, "Test-Path -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager'")).toBe('True');
    expect(
      ps(
        host,
        "@((Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control\\Session Manager').PendingFileRenameOperations).Count",
      ),
    ).toBe('2');
    expect(msi(host, 'C:\\Artifacts\\agent\\contrail-vrouter-agent.msi')).toBe(1603);
  });

  // PowerShell does not wait for a GUI-subsystem program (NativeCommandProcessor.cs): $LASTEXITCODE keeps its value,
  // $null in a fresh powershell.exe (test/unit/sim/differential/silent-errors.test.ts runs it in real pwsh too).
  it('& msiexec returns at once with no exit code to trust, as on Windows', () => {
    const host = prepared();
    expect(ps(host, "& msiexec.exe /i 'C:\\Artifacts\\vrouter\\vRouter.msi' /qn; $null -eq $LASTEXITCODE")).toBe('True');
    expect(ps(host, "@(Get-Package -ProviderName 'msi').Count")).toBe('0');
  });
});

describe('driver, agent and the data plane', () => {
  function converged(): WindowsHost {
    const host = prepared('5.0.1', { signed: true });
    for (const m of ['vrouter\\vRouter.msi', 'vrouter\\utils.msi', 'agent\\contrail-vrouter-agent.msi'])
      expect(msi(host, `C:\\Artifacts\\${m}`)).toBe(0);
    ps(host, "docker run --rm -v 'C:\\Artifacts:C:\\Artifacts' 'opencontrailnightly/contrail-windows-cnm-plugin:5.0.1' | Out-Null");
    expect(msi(host, 'C:\\Artifacts\\cnm-plugin\\contrail-cnm-plugin.msi')).toBe(0);
    return host;
  }

  const ETC = 'C:\\ProgramData\\Contrail\\etc\\contrail';
  /** The CNM plugin's service as c-a-d makes it: nssm from Chocolatey, then nssm install. */
  function cnmService(host: WindowsHost): void {
    ps(host, 'choco install nssm -y --no-progress | Out-Null');
    ps(
      host,
      "& 'C:\\ProgramData\\chocolatey\\bin\\nssm.exe' install 'contrail-cnm-plugin' 'C:\\Program Files\\Juniper Networks\\cnm-plugin\\contrail-cnm-plugin.exe' | Out-Null",
    );
    ps(host, `New-Item -ItemType Directory -Path '${ETC}' -Force | Out-Null`);
  }
  const CNM = "@('[DRIVER]', 'Adapter=Ethernet1', 'ControllerIP=192.0.2.10', '', '[AUTH]', 'AuthMethod=noauth')";

  it('the driver needs its config with an adapter of the host and [AUTH]; then it makes the vhost adapter and the Contrail pipe', () => {
    const host = converged();
    cnmService(host);
    expect(() => ps(host, "Start-Service -Name 'contrail-cnm-plugin'")).toThrow(/contrail-cnm-plugin.conf not found/);
    ps(host, `Set-Content -Path '${ETC}\\contrail-cnm-plugin.conf' -Value @('[DRIVER]', 'Adapter=Ethernet9')`);
    expect(() => ps(host, "Start-Service -Name 'contrail-cnm-plugin'")).toThrow(/Adapter 'Ethernet9' is not a network adapter/);
    ps(host, `Set-Content -Path '${ETC}\\contrail-cnm-plugin.conf' -Value @('[DRIVER]', 'Adapter=Ethernet1')`);
    expect(() => ps(host, "Start-Service -Name 'contrail-cnm-plugin'")).toThrow(/\[AUTH\] AuthMethod/);
    ps(host, `Set-Content -Path '${ETC}\\contrail-cnm-plugin.conf' -Value ${CNM}`);
    ps(host, "Start-Service -Name 'contrail-cnm-plugin'");
    expect(ps(host, "Test-Path -Path '\\\\.\\pipe\\Contrail'")).toBe('True');
    // Server 2019 (the default build) names the vhost after the adapter (c-a-d 85486b9b); 2016: build-facts.test.ts.
    expect(ps(host, "(Get-NetAdapter -Name 'vEthernet (Ethernet1)').Status")).toBe('Up');
    // The data adapter's address moved to the vhost adapter.
    expect(ps(host, "(Get-NetIPAddress -InterfaceAlias 'vEthernet (Ethernet1)' -AddressFamily IPv4).IPAddress")).toBe('172.16.0.50');
  });

  it('stopping Docker takes the pipe and the vhost adapter away', () => {
    const host = converged();
    cnmService(host);
    ps(host, `Set-Content -Path '${ETC}\\contrail-cnm-plugin.conf' -Value ${CNM}`);
    ps(host, "Start-Service -Name 'contrail-cnm-plugin'");
    ps(host, 'Stop-Service -Name docker -Force');
    expect(ps(host, "Test-Path -Path '\\\\.\\pipe\\Contrail'")).toBe('False');
    expect(ps(host, "@(Get-NetAdapter | Where-Object { $_.Name -eq 'vEthernet (Ethernet1)' }).Count")).toBe('0');
  });

  it('the agent needs the vhost adapter and a config naming its address and the data adapter; running, it gives pkt0, 9091, vif', () => {
    const host = converged();
    cnmService(host);
    const agent = `${ETC}\\contrail-vrouter-agent.conf`;
    ps(host, `Set-Content -Path '${agent}' -Value '[DEFAULT]'`);
    ps(
      host,
      "& 'C:\\ProgramData\\chocolatey\\bin\\nssm.exe' install 'contrail-vrouter-agent' 'C:\\Program Files\\Juniper Networks\\agent\\contrail-vrouter-agent.exe' | Out-Null",
    );
    expect(() => ps(host, "Start-Service -Name 'contrail-vrouter-agent'")).toThrow(/vhost adapter/);
    ps(host, `Set-Content -Path '${ETC}\\contrail-cnm-plugin.conf' -Value ${CNM}`);
    ps(host, "Start-Service -Name 'contrail-cnm-plugin'");
    expect(() => ps(host, "Start-Service -Name 'contrail-vrouter-agent'")).toThrow(/physical_interface is not ethernet_32769/);
    ps(host, `Set-Content -Path '${agent}' -Value @('[VIRTUAL-HOST-INTERFACE]', 'ip=172.16.0.50/24', 'physical_interface=ethernet_32769')`);
    expect(() => ps(host, "Start-Service -Name 'contrail-vrouter-agent'")).toThrow(
      /name is not ethernet_32777, the ifName of vEthernet \(Ethernet1\)/,
    );
    ps(
      host,
      `Set-Content -Path '${agent}' -Value @('[VIRTUAL-HOST-INTERFACE]', 'name=ethernet_32777', 'ip=172.16.0.50/24', 'physical_interface=ethernet_32769')`,
    );
    ps(host, "Start-Service -Name 'contrail-vrouter-agent'");
    expect(ps(host, "Test-Path -Path '\\\\.\\pipe\\pkt0'")).toBe('True');
    expect(ps(host, '(Get-NetTCPConnection -LocalPort 9091 -State Listen).LocalPort')).toBe('9091');
    expect(ps(host, 'vif --list')).toMatch(/vif0\/0 {6}OS: ethernet_32769[\s\S]*vif0\/1 {6}OS: ethernet_32777[\s\S]*vif0\/2 {6}OS: pkt0/);
    // Read with the roles' parser, which test/unit/roles/windows/parsers.test.ts runs on the real tool's output.
    expect(parseVifList(ps(host, 'vif --list'))).toEqual([
      { vif: 'vif0/0', attach: 'OS', name: 'ethernet_32769', type: 'Physical' },
      { vif: 'vif0/1', attach: 'OS', name: 'ethernet_32777', type: 'Host' },
      { vif: 'vif0/2', attach: 'OS', name: 'pkt0', type: 'Agent' },
    ]);
  });

  it('a tag the registry does not have cannot be pulled', () => {
    const host = prepared();
    const r = shell.runScript(host, "docker pull 'opencontrailnightly/contrail-windows-vrouter:9.9.9'");
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/manifest unknown/);
  });

  it('reads change nothing: a facts script leaves the journal as it was', () => {
    const host = converged();
    const before = host.state.journal.length;
    ps(
      host,
      "$f = [ordered]@{}\n$f['svc'] = @(Get-Service | Select-Object -Property 'Name')\n$f['pkgs'] = @(Get-Package -ProviderName 'msi')\n$f['bcd'] = @(bcdedit /enum '{current}')\n$f | ConvertTo-Json -Depth 3 -Compress | Out-Null",
    );
    expect(host.state.journal.length).toBe(before);
  });
  it('routes: a duplicate or an unknown interface is refused, a missing route cannot be removed, a removed network takes its routes', () => {
    const host = prepared();
    const fails = (script: string) => shell.runScript(host, `$ErrorActionPreference = 'Stop'\n${script}`);
    ps(host, "New-NetRoute -DestinationPrefix '10.42.2.0/24' -InterfaceAlias 'Ethernet0' -NextHop '192.0.2.32' | Out-Null");
    expect(fails("New-NetRoute -DestinationPrefix '10.42.2.0/24' -InterfaceAlias 'Ethernet0' -NextHop '192.0.2.32'").stderr).toMatch(
      /Instance MSFT_NetRoute already exists/,
    );
    expect(fails("New-NetRoute -DestinationPrefix '10.42.3.0/24' -InterfaceAlias 'Ethernet9' -NextHop '192.0.2.33'").stderr).toMatch(
      /No matching MSFT_NetIPInterface objects/,
    );
    expect(fails("Remove-NetRoute -DestinationPrefix '10.42.9.0/24' -Confirm:$false").stderr).toMatch(/No matching MSFT_NetRoute objects/);
    ps(host, "docker network create -d transparent --subnet '10.42.1.0/24' --gateway '10.42.1.1' gc-overlay | Out-Null");
    // The host's vNIC on a transparent network is named after the adapter it binds (Ethernet0 by default here).
    ps(host, "New-NetIPAddress -InterfaceAlias 'vEthernet (Ethernet0)' -IPAddress '10.42.1.1' -PrefixLength 24 | Out-Null");
    expect(fails("docker network create -d transparent --subnet '10.42.7.0/24' gc-overlay\nexit $LASTEXITCODE").stderr).toMatch(
      /network with name gc-overlay already exists/,
    );
    ps(host, 'docker network rm gc-overlay | Out-Null');
    expect(host.state.routes.some((r) => r.interfaceAlias === 'vEthernet (Ethernet0)')).toBe(false);
    expect(host.state.ipAddresses).toEqual([]);
  });

  it('netsh portproxy: add replaces the same listener, delete of an absent one fails', () => {
    const host = prepared();
    ps(host, 'netsh interface portproxy add v4tov4 listenport=8080 listenaddress=0.0.0.0 connectport=80 connectaddress=10.42.1.10');
    ps(host, 'netsh interface portproxy add v4tov4 listenport=8080 listenaddress=0.0.0.0 connectport=81 connectaddress=10.42.1.11');
    expect(host.state.portProxies).toEqual([{ listenAddress: '0.0.0.0', listenPort: 8080, connectAddress: '10.42.1.11', connectPort: 81 }]);
    const r = shell.runScript(host, 'netsh interface portproxy delete v4tov4 listenport=9090 listenaddress=0.0.0.0\nexit $LASTEXITCODE');
    expect([r.exitCode, r.stdout.trim()]).toEqual([1, 'The system cannot find the file specified.']);
  });

  it('a running service holds its executable: no write, move or delete until it stops', () => {
    const host = WindowsHost.fresh({ hostname: 'k1', features: ['Containers', 'Hyper-V'], containerd: true });
    ps(host, "New-Item -ItemType Directory -Force -Path 'C:\\k' | Out-Null");
    host.fs.put('C:\\k\\kubelet.exe', 'groundcrew-sim kubelet v1.29.4');
    host.fs.put('C:\\k\\kubelet-config.yaml', 'kind: KubeletConfiguration');
    host.fs.put('C:\\k\\bootstrap-kubeconfig', 'kind: Config');
    ps(
      host,
      "New-Service -Name kubelet -BinaryPathName 'C:\\k\\kubelet.exe --windows-service --config=C:\\k\\kubelet-config.yaml --bootstrap-kubeconfig=C:\\k\\bootstrap-kubeconfig' -DependsOn containerd | Out-Null\nStart-Service -Name kubelet",
    );
    host.fs.put('C:\\k\\kubelet.exe.new', 'groundcrew-sim kubelet v1.29.6');
    const locked = shell.runScript(
      host,
      "$ErrorActionPreference = 'Stop'\nMove-Item -Force -Path 'C:\\k\\kubelet.exe.new' -Destination 'C:\\k\\kubelet.exe'",
    );
    expect(locked.stderr).toMatch(/being used by another process/);
    ps(
      host,
      "Stop-Service -Name kubelet\nMove-Item -Force -Path 'C:\\k\\kubelet.exe.new' -Destination 'C:\\k\\kubelet.exe'\nStart-Service -Name kubelet",
    );
    expect(ps(host, "& 'C:\\k\\kubelet.exe' --version")).toBe('Kubernetes v1.29.6');
    // Without its runtime the kubelet does not start.
    ps(host, 'Stop-Service -Name containerd -Force');
    host.state.features.Containers = 'Available';
    expect(shell.runScript(host, "$ErrorActionPreference = 'Stop'\nStart-Service -Name kubelet").stderr).toMatch(
      /dependency service or group failed/,
    );
  });

  it('sc.exe config and failure take sc syntax only (a space after each "=")', () => {
    const host = WindowsHost.fresh({ hostname: 'k1', containerd: true });
    expect(shell.runScript(host, 'sc.exe config containerd start=auto\nexit $LASTEXITCODE').exitCode).toBe(1639);
    ps(host, 'sc.exe failure containerd reset= 86400 actions= restart/5000/restart/5000');
    expect(ps(host, '@(sc.exe qfailure containerd) -join "`n"')).toMatch(
      /RESET_PERIOD \(in seconds\)\s+: 86400\n.*\n.*\n\s+FAILURE_ACTIONS\s+: RESTART -- Delay = 5000 milliseconds\.\n\s+RESTART -- Delay = 5000/,
    );
  });
});
