// Verified: Contrail's own diagnostic check of a Windows compute (Juniper/contrail-windows-ci, the Pester
// "Diagnostic check"), every item in one read. Checks only: a difference is reported, and the node machine
// goes back to the phase that owns it at the next pass.
//
// The check's items and how each is read here:
// - vRouter forwarding extension running and enabled on the `Layered?<adapter>` VMSwitch; the VMSwitch exists
// - vhost, physical and pkt0 vifs in `vif --list` (by the adapters' ifNames, as the check greps them); vif
//   answering also shows the ksync device opens; `flow -l` answering shows the flow device (flow0) opens
// - the agent service running and serving TCP 9091 (the check connects; a listening socket is read here)
// - nodemgr running; the CNM plugin running, its \\.\pipe\Contrail, and the ContrailRootNetwork network
// - WinNAT stopped and disabled, no NetNat (the IP fragmentation workaround)
// - Docker running, no Contrail networks left with the transparent driver, no orphaned Contrail HNS networks
// and, beyond the check: the MSIs from the desired Contrail build, test signing active when it is wanted.

import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { runsContrail, type WindowsRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import { compare, type FactQuery, type Facts, type Resource } from '../resource.js';
import { VHOST_ADAPTER } from './contrail-config.js';
import { driverNames } from './driver-names.js';
import { AGENT_MSI, UTILS_MSI, VROUTER_MSI } from './msi-products.js';
import { buildFact, installedBuild, MSI_PACKAGES_FACT } from './msi-resource.js';
import { factLines, parseNetworkIds, parseVifList } from './parsers.js';
import { serviceStatus } from './queries.js';
import { TEST_SIGNING_FACTS, testSigningState } from './test-signing.js';

export const EXTENSION = 'vRouter forwarding extension';

function check(name: string, facts: FactQuery[], test: Resource['test']): Resource {
  return {
    name: `verify/${name}`,
    facts,
    test,
    async set() {
      throw errors.GC_STILL_DIFFERENT(`verify/${name}: the node is not in the state its phases left it; the next pass repairs it`);
    },
  };
}

const service = (name: string): FactQuery => ({ id: `verify.${name}`, ps: serviceStatus(name) });
/** A native tool's output, or $null when it fails: its failing is the observation (a device that does not open). */
const tool = (id: string, command: string): FactQuery => ({ id, ps: `$o = @(${command}); if ($LASTEXITCODE -ne 0) { $null } else { $o }` });

function diagnostics(input: WindowsRoleInput): Resource[] {
  const switchName = `Layered?${input.physicalInterface}`;
  // contrail-cnm-plugin, or contrail-docker-driver on 5.0 (the check's own older version names that one).
  const driver = driverNames(input.contrailVersion).service;
  const ifNames = (facts: Facts) => new Map(factLines(facts.get('verify.adapters')).map((l) => l.split('|') as [string, string]));
  const vifs = (facts: Facts) => parseVifList(facts.get('verify.vif'));
  const hasVif = (facts: Facts, name: string | undefined) => name !== undefined && vifs(facts).some((v) => v.name === name);
  return [
    check(
      'vrouter-extension',
      [
        {
          id: 'verify.extension',
          ps: `$x = Get-VMSwitchExtension -VMSwitchName ${psQuote(switchName)} -Name ${psQuote(EXTENSION)} -ErrorAction SilentlyContinue | Select-Object -First 1; if ($x) { [pscustomobject]@{ enabled = $x.Enabled; running = $x.Running } } else { $null }`,
        },
        { id: 'verify.switch', ps: `[bool](Get-VMSwitch -Name ${psQuote(switchName)} -ErrorAction SilentlyContinue)` },
      ],
      (facts) => {
        const x = facts.get('verify.extension') as { enabled: boolean; running: boolean } | null;
        return compare({
          Running: [x?.running ?? false, true],
          Enabled: [x?.enabled ?? false, true],
          VMSwitch: [facts.get('verify.switch'), true],
        });
      },
    ),
    check(
      'vifs',
      [
        {
          id: 'verify.adapters',
          ps: `@(Get-NetAdapter -Name ${psQuote(input.physicalInterface)},${psQuote(VHOST_ADAPTER)} -ErrorAction SilentlyContinue | ForEach-Object { "$($_.Name)|$($_.ifName)" })`,
        },
        tool('verify.vif', 'vif --list'),
        tool('verify.flow', 'flow -l'),
      ],
      (facts) =>
        compare({
          vhostVif: [hasVif(facts, ifNames(facts).get(VHOST_ADAPTER)), true],
          physicalVif: [hasVif(facts, ifNames(facts).get(input.physicalInterface)), true],
          pkt0Vif: [hasVif(facts, 'pkt0'), true],
          flowDevice: [facts.get('verify.flow') !== null, true],
        }),
    ),
    check(
      'agent',
      [
        service('contrail-vrouter-agent'),
        { id: 'verify.port', ps: '[bool](Get-NetTCPConnection -LocalPort 9091 -State Listen -ErrorAction SilentlyContinue)' },
      ],
      (facts) =>
        compare({ Status: [facts.get('verify.contrail-vrouter-agent'), 'Running'], ServesTcp9091: [facts.get('verify.port'), true] }),
    ),
    check('nodemgr', [service('contrail-vrouter-nodemgr')], (facts) =>
      compare({ Status: [facts.get('verify.contrail-vrouter-nodemgr'), 'Running'] }),
    ),
    check(
      'cnm-plugin',
      [
        service(driver),
        { id: 'verify.pipe', ps: "Test-Path -Path '\\\\.\\pipe\\Contrail'" },
        { id: 'verify.root', ps: "[bool](Get-ContainerNetwork | Where-Object { $_.Name -eq 'ContrailRootNetwork' })" },
      ],
      (facts) =>
        compare({
          Status: [facts.get(`verify.${driver}`), 'Running'],
          Pipe: [facts.get('verify.pipe'), true],
          ContrailRootNetwork: [facts.get('verify.root'), true],
        }),
    ),
    check(
      'winnat',
      [
        {
          id: 'verify.winnat',
          ps: "$s = Get-Service -Name 'WinNAT' -ErrorAction SilentlyContinue; if ($s) { [pscustomobject]@{ status = $s.Status.ToString(); start = $s.StartType.ToString() } } else { $null }",
        },
        { id: 'verify.netnat', ps: '@(Get-NetNat | ForEach-Object { $_.Name })' },
      ],
      (facts) => {
        const w = facts.get('verify.winnat') as { status: string; start: string } | null;
        return compare({
          Status: [w?.status ?? 'Stopped', 'Stopped'],
          StartType: [w?.start ?? 'Disabled', 'Disabled'],
          NetNat: [factLines(facts.get('verify.netnat')), []],
        });
      },
    ),
    check(
      'docker',
      [
        service('docker'),
        tool('verify.transparent', "docker network ls --filter 'driver=transparent' --format '{{.Name}}'"),
        tool('verify.owned', "docker network ls --quiet --filter 'driver=Contrail'"),
        {
          id: 'verify.hnsContrail',
          ps: "@(Get-ContainerNetwork | Where-Object { $_.Name -like 'Contrail:*' } | ForEach-Object { $_.Name })",
        },
      ],
      (facts) => {
        const owned = parseNetworkIds(facts.get('verify.owned'));
        // Docker shortens network ids to 12 characters (the check's Substring(0, 12)).
        const orphans = factLines(facts.get('verify.hnsContrail')).filter((n) => !owned.includes((n.split(':')[1] ?? '').slice(0, 12)));
        return compare({
          Status: [facts.get('verify.docker'), 'Running'],
          ContrailNetworksWithTransparentDriver: [factLines(facts.get('verify.transparent')).filter((n) => /^Contrail:/.test(n)), []],
          OrphanedContrailHnsNetworks: [orphans, []],
        });
      },
    ),
  ];
}

export function windowsVerify(input: WindowsRoleInput): Phase {
  if (!runsContrail(input)) {
    // A node without Contrail roles (a Kubernetes worker, an overlay host): Docker is what prereqs left.
    const docker = check('services', [service('docker')], (facts) => compare({ docker: [facts.get('verify.docker'), 'Running'] }));
    return { name: 'verified', resources: [docker] };
  }
  // The Contrail build each product was installed from (msi-resource.ts: Windows Installer's version is fixed).
  const products = [VROUTER_MSI.product, UTILS_MSI.product, AGENT_MSI.product, driverNames(input.contrailVersion).product];
  const resources: Resource[] = [
    ...diagnostics(input),
    check('versions', [MSI_PACKAGES_FACT, ...products.map(buildFact)], (facts) =>
      compare(Object.fromEntries(products.map((p) => [p, [installedBuild(facts, p), input.contrailVersion]]))),
    ),
  ];
  if (input.testSigning) {
    resources.push(check('test-signing', TEST_SIGNING_FACTS, (facts) => compare({ Active: [testSigningState(facts).active, true] })));
  }
  return { name: 'verified', resources };
}
