// Verified: Contrail's own diagnostic check of a Windows compute (contrail-windows-tools
// Invoke-DiagnosticCheck.ps1, the Pester "Diagnostic check"), every item that has a body, in one read.
// Checks only: a difference is reported, and the node machine goes back to the phase that owns it at the
// next pass.
//
// The check's items and how each is read here:
// - vRouter forwarding extension running and enabled on the `Layered?<adapter>` VMSwitch; the VMSwitch exists
// - vhost, physical and pkt0 vifs in `vif --list` (by the adapters' ifNames, as the check greps them; the
//   vhost adapter by its 2016 or 2019 name, vhost-adapter.ts); the ksync device usable (`vif --list` exits
//   0), the flow device (`flow -l`) and the bridge table device (`rt --dump 0 --family bridge`) likewise
// - the agent service running, its API answering a TCP connect on 9091 (Test-NetConnection, as the check),
//   and no "Assertion failed" in its logs
// - nodemgr running; the CNM plugin running, its \\.\pipe\Contrail there and answering a connect
//   (NamedPipeClientStream.Connect), and the ContrailRootNetwork HNS network
// - firewall off on the Domain, Private and Public profiles; no npcap service; no MEMORY.DMP or minidumps
// - WinNAT stopped and disabled, no NetNat (the IP fragmentation workaround)
// - Docker running, no Contrail networks left with the transparent driver, no orphaned Contrail HNS networks,
//   no `Layered*` HNS networks
// HNS networks are listed with the build's cmdlets (hns-networks.ts: Get-ContainerNetwork is not on 2019).
// Not checked: "Visual DLLs are present" (an exit code of vif and the agent only a debug build gives), and the
// items the check leaves inconclusive or empty (pings, test signing, the certificates). Beyond the check: the
// MSIs from the desired Contrail build, test signing active when it is wanted.

import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { runsContrail, type WindowsRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import { compare, type FactQuery, type Facts, type Resource } from '../resource.js';
import { LOG_DIR } from './contrail-config.js';
import { driverNames } from './driver-names.js';
import { hnsNetworkNames } from './hns-networks.js';
import { AGENT_MSI, UTILS_MSI, VROUTER_MSI } from './msi-products.js';
import { buildFact, installedBuild, MSI_PACKAGES_FACT } from './msi-resource.js';
import { factLines, parseNetworkIds, parseVifList } from './parsers.js';
import { serviceStatus } from './queries.js';
import { TEST_SIGNING_FACTS, testSigningState } from './test-signing.js';
import { vhostAdapter } from './vhost-adapter.js';

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

/** Every HNS network's name, read once for the items that look at them (hns-networks.ts: the build's cmdlets). */
const HNS_FACT = { id: 'verify.hnsNetworks', ps: hnsNetworkNames('*') };
const hns = (facts: Facts) => factLines(facts.get(HNS_FACT.id));

/** The CNM plugin's API: a client connect to \\.\pipe\Contrail within a second, as the check makes it. */
const PIPE_SERVES = [
  "$c = New-Object -TypeName System.IO.Pipes.NamedPipeClientStream -ArgumentList '.', 'Contrail'",
  'try { $c.Connect(1000); $true } catch { $false } finally { $c.Dispose() }',
].join('\n');

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
          ps: `$v = ${vhostAdapter(input.physicalInterface, psQuote)}; @(Get-NetAdapter -Name ${psQuote(input.physicalInterface)} -ErrorAction SilentlyContinue | ForEach-Object { "physical|$($_.ifName)" }) + @($v | Where-Object { $_ } | ForEach-Object { "vhost|$($_.ifName)" })`,
        },
        tool('verify.vif', 'vif --list'),
        tool('verify.flow', 'flow -l'),
        tool('verify.rt', 'rt --dump 0 --family bridge'),
      ],
      (facts) =>
        compare({
          vhostVif: [hasVif(facts, ifNames(facts).get('vhost')), true],
          physicalVif: [hasVif(facts, ifNames(facts).get('physical')), true],
          pkt0Vif: [hasVif(facts, 'pkt0'), true],
          ksyncDevice: [facts.get('verify.vif') !== null, true],
          flowDevice: [facts.get('verify.flow') !== null, true],
          bridgeTableDevice: [facts.get('verify.rt') !== null, true],
        }),
    ),
    check(
      'agent',
      [
        service('contrail-vrouter-agent'),
        {
          id: 'verify.agentApi',
          ps: '(Test-NetConnection -ComputerName localhost -Port 9091 -WarningAction SilentlyContinue).TcpTestSucceeded',
        },
        {
          id: 'verify.agentAsserted',
          ps: `@(Get-ChildItem -Path ${psQuote(LOG_DIR)} -ErrorAction SilentlyContinue | Where-Object { $_.Name -like '*contrail-vrouter-agent*' } | Where-Object { (Get-Content -Raw -Path $_.FullName) -match 'Assertion failed' } | ForEach-Object { $_.Name })`,
        },
      ],
      (facts) =>
        compare({
          Status: [facts.get('verify.contrail-vrouter-agent'), 'Running'],
          ServesAgentApi: [facts.get('verify.agentApi'), true],
          LogsWithAssertions: [factLines(facts.get('verify.agentAsserted')), []],
        }),
    ),
    check('nodemgr', [service('contrail-vrouter-nodemgr')], (facts) =>
      compare({ Status: [facts.get('verify.contrail-vrouter-nodemgr'), 'Running'] }),
    ),
    check(
      'cnm-plugin',
      [
        service(driver),
        { id: 'verify.pipe', ps: "Test-Path -Path '\\\\.\\pipe\\Contrail'" },
        { id: 'verify.pipeServes', ps: PIPE_SERVES },
        HNS_FACT,
      ],
      (facts) =>
        compare({
          Status: [facts.get(`verify.${driver}`), 'Running'],
          Pipe: [facts.get('verify.pipe'), true],
          PipeServes: [facts.get('verify.pipeServes'), true],
          ContrailRootNetwork: [hns(facts).includes('ContrailRootNetwork'), true],
        }),
    ),
    check(
      'compute-node',
      [
        {
          id: 'verify.firewall',
          ps: "@(Get-NetFirewallProfile -Name 'Domain','Private','Public' | Where-Object { $_.Enabled } | ForEach-Object { $_.Name })",
        },
        { id: 'verify.npcap', ps: "[bool](Get-Service -Name 'npcap' -ErrorAction SilentlyContinue)" },
        { id: 'verify.memoryDump', ps: "Test-Path -LiteralPath 'C:\\Windows\\MEMORY.DMP'" },
        {
          id: 'verify.minidumps',
          ps: "if (Test-Path -LiteralPath 'C:\\Windows\\Minidump') { @(Get-ChildItem -Path 'C:\\Windows\\Minidump' | Where-Object { $_.Name -like '*.dmp' } | ForEach-Object { $_.Name }) } else { @() }",
        },
      ],
      (facts) =>
        compare({
          FirewallEnabledProfiles: [factLines(facts.get('verify.firewall')), []],
          Npcap: [facts.get('verify.npcap'), false],
          MemoryDump: [facts.get('verify.memoryDump'), false],
          Minidumps: [factLines(facts.get('verify.minidumps')), []],
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
        HNS_FACT,
      ],
      (facts) => {
        const owned = parseNetworkIds(facts.get('verify.owned'));
        // Docker shortens network ids to 12 characters (the check's Substring(0, 12)).
        const orphans = hns(facts)
          .filter((n) => /^Contrail:/i.test(n))
          .filter((n) => !owned.includes((n.split(':')[1] ?? '').slice(0, 12)));
        return compare({
          Status: [facts.get('verify.docker'), 'Running'],
          ContrailNetworksWithTransparentDriver: [factLines(facts.get('verify.transparent')).filter((n) => /^Contrail:/.test(n)), []],
          OrphanedContrailHnsNetworks: [orphans, []],
          LayeredHnsNetworks: [hns(facts).filter((n) => /^Layered/i.test(n)), []],
        });
      },
    ),
  ];
}

export function windowsVerify(input: WindowsRoleInput): Phase {
  if (!runsContrail(input)) {
    // A node without Contrail roles (a Kubernetes worker, an overlay host): Docker is what prereqs left.
    const docker = check('services', [service('docker')], (facts) => compare({ docker: [facts.get('verify.docker'), 'Running'] }));
    return { name: 'verify', resources: [docker] };
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
  return { name: 'verify', resources };
}
