// The simulated host refuses what Windows refuses for an adapter it does not have (issue 37): New-VMSwitch
// -NetAdapterName (Hyper-V: "Cannot find a physical network adapter named X.", no switch made), and a transparent
// network made through Docker (HNS: "An adapter was not found."), in the TypeScript interpreter and in real pwsh.
// A host is built with the adapters it is given: Get-NetAdapter lists them, Get-NetIPAddress their addresses.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { windowsPlan } from '../../../../src/roles/windows/plan.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import type { NicState } from '../../../../src/sim/windows/windows-state.js';
import { convergePhases } from '../../../support/converge-phases.js';
import { windowsInput } from '../../../support/inputs.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';
import { simWindows } from '../../../support/sim-windows.js';

const { host, run } = simWindows();
const NICS: NicState[] = [
  { name: 'Ethernet0', ipAddress: '192.0.2.31', prefixLength: 24, gateway: '192.0.2.1', origin: 'Manual' },
  { name: 'Ethernet2', ipAddress: '172.16.0.31', prefixLength: 24, gateway: '172.16.0.1', origin: 'Dhcp' },
  { name: 'Ethernet 3', ipAddress: '172.16.1.31', prefixLength: 24, gateway: '172.16.1.1', origin: 'Dhcp' },
];
const NEW_SWITCH = "New-VMSwitch -Name 'Layered Ethernet1' -NetAdapterName 'Ethernet1' -AllowManagementOS $true";

let converged: string;
beforeAll(async () => {
  // Docker running with its prereqs, as the roles leave a host before the vRouter: a transparent network can be asked for.
  const shells = await SimShells.create();
  const h = WindowsHost.fresh({ hostname: 'win1', nics: NICS });
  await convergePhases(
    new SimExecutor({ host: h, shells }),
    () => windowsPlan(windowsInput({ physicalInterface: 'Ethernet2' })).phases.slice(0, 1),
    () => h.reboot(),
    {
      throwOnFailure: true,
    },
  );
  converged = JSON.stringify(h.state);
}, 120_000);

describe('an adapter the host does not have', () => {
  it('the host has the adapters it was built with, each with its own address (DHCP ones once leased)', () => {
    const h = host({ nics: NICS, features: ['Hyper-V'] });
    expect(run(h, '(Get-NetAdapter).Name').stdout).toBe('Ethernet0\r\nEthernet2\r\nEthernet 3\r\n');
    const addresses = run(
      h,
      'Get-NetIPAddress -AddressFamily IPv4 | ForEach-Object { "$($_.InterfaceAlias) $($_.IPAddress) $($_.SuffixOrigin)" }',
    );
    expect(addresses.stdout).toContain('Ethernet 3 172.16.1.31 Dhcp\r\n');
    expect(addresses.stdout).toContain('Ethernet0 192.0.2.31 Manual\r\n');
    h.state.faults.dhcpLeaseAt = Date.now() + 3_600_000;
    expect(run(h, "@(Get-NetIPAddress -InterfaceAlias 'Ethernet 3' -AddressFamily IPv4 -ErrorAction SilentlyContinue).Count").stdout).toBe(
      '0\r\n',
    );
  });

  it("New-VMSwitch -NetAdapterName of a missing adapter: Hyper-V's error, no switch; on one it has, refused as not modelled", () => {
    const h = host({ nics: NICS, features: ['Hyper-V'] });
    const refused = run(h, NEW_SWITCH);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/Cannot find a physical network adapter named Ethernet1\./);
    expect(refused.stderr).toMatch(/ObjectNotFound,Microsoft\.HyperV\.PowerShell\.Commands\.NewVMSwitch/);
    expect(h.state.journal).toEqual([]);
    expect(run(h, '@(Get-VMSwitch).Count').stdout).toBe('0\r\n');
    const other = run(h, "New-VMSwitch -Name 'Layered Ethernet2' -NetAdapterName 'Ethernet2'");
    expect(other.stderr).toMatch(/NotSupportedBySimulator/);
    // Without the Hyper-V module there is no New-VMSwitch at all.
    expect(run(host({ nics: NICS }), NEW_SWITCH).stderr).toMatch(/is not recognized/);
  });

  it('docker network create on a missing adapter fails as HNS does; on one the host has, it is made', () => {
    const h = new WindowsHost(JSON.parse(converged));
    const missing = run(
      h,
      "docker network create -d transparent --subnet 10.42.1.0/24 --gateway 10.42.1.1 -o 'com.docker.network.windowsshim.interface=Ethernet1' gc-overlay\nexit $LASTEXITCODE",
    );
    expect(missing).toMatchObject({
      exitCode: 1,
      stderr: 'Error response from daemon: HNS failed with error : An adapter was not found. \r\n',
    });
    expect(h.state.hnsNetworks.filter((n) => n.type === 'Transparent')).toEqual([]);
    const made = run(
      h,
      "docker network create -d transparent --subnet 10.42.1.0/24 --gateway 10.42.1.1 -o 'com.docker.network.windowsshim.interface=Ethernet 3' gc-overlay\nexit $LASTEXITCODE",
    );
    expect(made.exitCode).toBe(0);
    expect(run(h, '(Get-NetAdapter).Name').stdout).toContain('vEthernet (Ethernet 3)\r\n');
  });

  it.each([14393, 17763] as const)(
    'in real pwsh on build %i, New-VMSwitch answers as Hyper-V does for a missing adapter',
    async (build) => {
      const h = WindowsHost.fresh({ hostname: 'win1', build, nics: NICS, features: ['Hyper-V'] });
      const result = await runInRealPwsh(
        h,
        `try { ${NEW_SWITCH} -ErrorAction Stop } catch { "$($_.CategoryInfo.Category) | $($_.Exception.Message)"; $_.FullyQualifiedErrorId }\n@(Get-VMSwitch).Count`,
        { timeoutMs: 240_000 },
      );
      expect(result.stderr).toBe('');
      const [said, id, count] = result.stdout.split('\n');
      expect([said, count]).toEqual(['ObjectNotFound | Cannot find a physical network adapter named Ethernet1.', '0']);
      // The lab's bridge appends the function's name to every error id (",New-VMSwitch"): the id as Hyper-V gives it leads.
      expect(id).toMatch(/^ObjectNotFound,Microsoft\.HyperV\.PowerShell\.Commands\.NewVMSwitch(,New-VMSwitch)?$/);
      expect(h.state.journal).toEqual([]);
    },
    300_000,
  );
});
