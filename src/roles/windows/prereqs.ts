// Windows prerequisites (c-a-d install_software_Win32NT.yml): the Containers, NET-Framework-Features and
// Hyper-V features (with management tools), NuGet and DockerMsftProvider, Docker at the desired version with
// "bridge":"none", WinNAT stopped and disabled, no stale NAT networks, Contrail's directories.

import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { asciiJson } from '../ascii-json.js';
import { runsContrail, type WindowsRoleInput } from '../input.js';
import { changeLast, type Phase, setByCommand } from '../phase.js';
import { compare, type Facts, NO_CHANGE, type Resource } from '../resource.js';
import { HNS_NETWORKS, removeHnsNetworksOfType } from './hns-networks.js';
import { namedAdapters } from './named-adapters.js';
import { windowsOverlayAbsent } from './overlay.js';
import { chocolateyPackages, firewallOff } from './prereqs-tools.js';
import { ELEVATED_FACT, serviceStatus } from './queries.js';

export const CONTRAIL_DIRS = [
  'C:\\ProgramData\\Contrail',
  'C:\\ProgramData\\Contrail\\etc\\contrail',
  'C:\\ProgramData\\Contrail\\var\\log\\contrail',
  'C:\\ProgramData\\Contrail\\var\\lib\\contrail',
];
const DAEMON_JSON = 'C:\\ProgramData\\docker\\config\\daemon.json';

/**
 * The Windows features (c-a-d install_software_Win32NT.yml: Containers, NET-Framework-Features, and Hyper-V with
 * include_management_tools), each with the features -IncludeManagementTools adds (`tools`: without the
 * Hyper-V-PowerShell one there is no Get-VMSwitchExtension to check the vRouter with). Those still Available are
 * installed in one command (Install-WindowsFeature takes several names: windows-powershell-docs,
 * ServerManager/Install-WindowsFeature.md, `-Name <Feature[]>`), the ones with tools in a second call of it, so
 * -IncludeManagementTools adds only what c-a-d asks for.
 */
function features(wanted: readonly { name: string; tools?: readonly string[] }[]): Resource {
  const ids = wanted.map(({ name, tools = [] }) => ({ name, tools, ids: [name, ...tools].map((f) => [f, `feature.${f}`] as const) }));
  const all = ids.flatMap((f) => f.ids);
  return {
    name: 'features',
    sharesReboot: true,
    facts: all.map(([f, id]) => ({ id, ps: `(Get-WindowsFeature -Name ${psQuote(f)}).InstallState.ToString()` })),
    test: (facts) => compare(Object.fromEntries(all.map(([f, id]) => [f, [facts.get(id), 'Installed']]))),
    async set({ exec, facts, signal }) {
      // InstallPending: installed, waiting for the reboot only.
      const pending = all.some(([, id]) => facts.get(id) === 'InstallPending');
      const available = ids.filter((f) => f.ids.some(([, id]) => facts.get(id) === 'Available'));
      if (available.length === 0) return { changed: false, rebootRequested: pending };
      const names = (group: typeof available) => group.map((f) => psQuote(f.name)).join(',');
      const plain = available.filter((f) => f.tools.length === 0);
      const withTools = available.filter((f) => f.tools.length > 0);
      // RestartNeeded (Yes, No, Maybe): .NET 3.5 is usable at once, Containers and Hyper-V after a restart.
      const said = await changeLast(
        exec,
        [
          '$r = @()',
          ...(plain.length > 0 ? [`$r += Install-WindowsFeature -Name ${names(plain)}`] : []),
          ...(withTools.length > 0 ? [`$r += Install-WindowsFeature -Name ${names(withTools)} -IncludeManagementTools`] : []),
          `"$(@($r | Where-Object { "$($_.RestartNeeded)" -ne 'No' }).Count)"`,
        ].join('\n'),
        `install features ${available.map((f) => f.name).join(', ')}`,
        { signal },
      );
      return { changed: true, rebootRequested: pending || said.trim() !== '0' };
    },
  };
}

/** Everything after this needs an elevated session (feature installs, bcdedit, msiexec): stall here, clearly. */
function elevated(): Resource {
  return {
    name: 'session/elevated',
    facts: [ELEVATED_FACT],
    test: (facts) => compare({ Elevated: [facts.get(ELEVATED_FACT.id), true] }),
    async set() {
      throw errors.GC_NOT_ELEVATED(
        'the SSH session has no elevated token (whoami /groups shows no High Mandatory Level): Windows refuses feature installs, bcdedit and msiexec; nothing was changed',
      );
    },
  };
}

/** The features -IncludeManagementTools adds to Hyper-V on Windows Server. */
const HYPERV_TOOLS = ['Hyper-V-PowerShell'];

/**
 * A PackageManagement provider: NuGet first (Install-PackageProvider), then DockerMsftProvider from the
 * PowerShell Gallery (Install-Module, which needs NuGet): Microsoft's documented Docker EE install on
 * Windows Server 2016/2019 (c-a-d installs the provider module with win_psmodule before Install-Package).
 */
function packageProvider(name: 'NuGet' | 'DockerMsftProvider'): Resource {
  const id = `provider.${name}`;
  return {
    name: `package-provider/${name}`,
    facts: [{ id, ps: `[bool](Get-PackageProvider -Name ${psQuote(name)} -ErrorAction SilentlyContinue)` }],
    test: (facts) => compare({ Installed: [facts.get(id), true] }),
    async set({ exec, signal }) {
      const script =
        name === 'NuGet'
          ? "Install-PackageProvider -Name 'NuGet' -MinimumVersion '2.8.5.201' -Force | Out-Null"
          : "Install-Module -Name 'DockerMsftProvider' -Repository 'PSGallery' -Force";
      return setByCommand(exec, script, `install ${name}`, { signal });
    },
  };
}

function docker(input: WindowsRoleInput): Resource {
  return {
    name: 'docker/package',
    facts: [
      {
        id: 'docker.version',
        // Without the provider there is no docker package to ask about: Get-Package would fail on the provider.
        ps: "if (Get-PackageProvider -Name 'DockerMsftProvider' -ErrorAction SilentlyContinue) { (Get-Package -Name 'docker' -ProviderName 'DockerMsftProvider' -ErrorAction SilentlyContinue).Version } else { $null }",
      },
    ],
    test(facts) {
      const installed = facts.get('docker.version') as string | null;
      const wanted = input.dockerVersion ?? (installed ? installed : 'any');
      return compare({ Version: [installed, wanted] });
    },
    async set({ exec, signal }) {
      const version = input.dockerVersion ? ` -RequiredVersion ${psQuote(input.dockerVersion)}` : '';
      return setByCommand(
        exec,
        `Install-Package -Name 'docker' -ProviderName 'DockerMsftProvider'${version} -Force | Out-Null`,
        'install docker',
        { signal },
      );
    },
  };
}

/** The registry's host[:port]: what Docker's insecure-registries names (an image path after it is not part of it). */
export const registryHost = (registry: string) => registry.split('/')[0] ?? registry;

/**
 * daemon.json: "bridge":"none" (c-a-d install_software_Win32NT.yml "disable the nat network in docker config") and,
 * with REGISTRY_PRIVATE_INSECURE, the registry in insecure-registries (c-a-d docker/tasks/insecure_registry_Win32NT.yml:
 * a plain-HTTP registry Docker otherwise refuses to pull from). Other keys are kept; Docker reads the file as it starts.
 * As dockerd reads it (Go's encoding/json: UTF-8, and no BOM before Docker 23.0, moby/moby#44770), in the same bytes
 * from Windows PowerShell 5.1 and 7: written -Encoding ASCII (5.1's default is the ANSI code page, its UTF8 writes a
 * BOM; 7's default is UTF-8) as ASCII JSON, so a value kept from the node's file survives whole. Read back -Encoding
 * UTF8, as dockerd reads it, and cast to [string]: what Get-Content returns carries PSPath and other NoteProperties,
 * which 5.1's ConvertTo-Json sends as an object (PowerShell/PowerShell#15665: 7.2 on, not).
 */
function daemonJson(input: WindowsRoleInput): Resource {
  const insecure = input.registryInsecure ? registryHost(input.registry) : undefined;
  const read = (facts: Facts): Record<string, unknown> | 'unreadable' => {
    try {
      const parsed: unknown = JSON.parse(String(facts.get('docker.daemonJson') ?? '{}'));
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : 'unreadable';
    } catch {
      return 'unreadable';
    }
  };
  const listed = (current: Record<string, unknown> | 'unreadable'): string[] => {
    const list = current === 'unreadable' ? [] : current['insecure-registries'];
    return Array.isArray(list) ? list.map(String) : [];
  };
  return {
    name: 'docker/daemon.json',
    facts: [
      {
        id: 'docker.daemonJson',
        ps: `if (Test-Path -LiteralPath ${psQuote(DAEMON_JSON)}) { [string](Get-Content -LiteralPath ${psQuote(DAEMON_JSON)} -Raw -Encoding UTF8) } else { $null }`,
      },
      { id: 'docker.status', ps: serviceStatus('docker') },
    ],
    test(facts) {
      const current = read(facts);
      return compare({
        bridge: [current === 'unreadable' ? current : (current.bridge ?? null), 'none'],
        ...(insecure ? { 'insecure-registries': [listed(current).includes(insecure), true] } : {}),
      });
    },
    async set({ exec, facts, signal }) {
      const current = read(facts);
      const kept = current === 'unreadable' ? {} : current;
      const registries = listed(current);
      const content = asciiJson({
        ...kept,
        bridge: 'none',
        ...(insecure && !registries.includes(insecure) ? { 'insecure-registries': [...registries, insecure] } : {}),
      });
      const restart = facts.get('docker.status') === 'Running' ? "\nRestart-Service -Name 'docker' -Force" : '';
      return setByCommand(
        exec,
        `New-Item -ItemType Directory -Path 'C:\\ProgramData\\docker\\config' -Force | Out-Null\nSet-Content -LiteralPath ${psQuote(DAEMON_JSON)} -Value ${psQuote(content)} -NoNewline -Encoding ASCII${restart}`,
        'write daemon.json',
        { signal },
      );
    },
  };
}

function dockerService(): Resource {
  return {
    name: 'docker/service',
    facts: [
      {
        id: 'docker.service',
        ps: "$s = Get-Service -Name 'docker' -ErrorAction SilentlyContinue; if ($s) { [pscustomobject]@{ status = $s.Status.ToString(); start = $s.StartType.ToString() } } else { $null }",
      },
    ],
    test(facts) {
      const s = facts.get('docker.service') as { status: string; start: string } | null;
      return compare({ Status: [s?.status ?? null, 'Running'], StartType: [s?.start ?? null, 'Automatic'] });
    },
    async set({ exec, signal }) {
      return setByCommand(exec, "Set-Service -Name 'docker' -StartupType Automatic\nStart-Service -Name 'docker'", 'start docker', {
        signal,
      });
    },
  };
}

function winnat(): Resource {
  return {
    name: 'winnat',
    facts: [
      {
        id: 'winnat',
        ps: "$s = Get-Service -Name 'winnat' -ErrorAction SilentlyContinue; if ($s) { [pscustomobject]@{ status = $s.Status.ToString(); start = $s.StartType.ToString() } } else { $null }",
      },
    ],
    test(facts) {
      const s = facts.get('winnat') as { status: string; start: string } | null;
      return s === null ? compare({}) : compare({ Status: [s.status, 'Stopped'], StartType: [s.start, 'Disabled'] });
    },
    async set({ exec, signal }) {
      return setByCommand(
        exec,
        "Stop-Service -Name 'winnat' -Force\nSet-Service -Name 'winnat' -StartupType Disabled",
        'stop and disable WinNAT',
        { signal },
      );
    },
  };
}

/**
 * No NAT container network and no NetNat (c-a-d: `Get-NetNat | Remove-NetNat`, and the HNS networks removed
 * with the build's cmdlets, hns-networks.ts; contrail-windows-ci's diagnostic check: "there is no NAT network").
 */
export const NAT_NETWORKS_FACT = {
  id: 'containers.nat',
  ps: `${HNS_NETWORKS}\n@($hns | Where-Object { $_.type -eq 'NAT' } | ForEach-Object { $_.name })`,
};
export const NETNAT_FACT = { id: 'netnat', ps: '@(Get-NetNat | ForEach-Object { $_.Name })' };

function natNetworks(): Resource {
  return {
    name: 'nat-networks',
    facts: [NAT_NETWORKS_FACT, NETNAT_FACT],
    // An empty list comes back from PowerShell as nothing at all.
    test: (facts) => compare({ NatNetworks: [facts.get(NAT_NETWORKS_FACT.id) ?? [], []], NetNat: [facts.get(NETNAT_FACT.id) ?? [], []] }),
    async set({ exec, signal }) {
      return setByCommand(exec, `${removeHnsNetworksOfType('NAT')}\nGet-NetNat | Remove-NetNat -Confirm:$false`, 'remove NAT networks', {
        signal,
      });
    },
  };
}

function contrailDirs(): Resource {
  return {
    name: 'contrail-dirs',
    facts: CONTRAIL_DIRS.map((d, i) => ({ id: `dir.${i}`, ps: `Test-Path -LiteralPath ${psQuote(d)} -PathType Container` })),
    test: (facts) => compare(Object.fromEntries(CONTRAIL_DIRS.map((d, i) => [d, [facts.get(`dir.${i}`), true]]))),
    async set({ exec, facts, signal }) {
      const missing = CONTRAIL_DIRS.filter((_, i) => facts.get(`dir.${i}`) !== true);
      if (missing.length === 0) return NO_CHANGE;
      return setByCommand(
        exec,
        missing.map((d) => `New-Item -ItemType Directory -Path ${psQuote(d)} -Force | Out-Null`).join('\n'),
        'create Contrail directories',
        { signal },
      );
    },
  };
}

export function windowsPrereqs(input: WindowsRoleInput): Phase {
  return {
    name: 'prereqs',
    resources: [
      elevated(),
      // Before anything is changed: an adapter the inventory names that the node lacks stops the node here.
      ...[namedAdapters(input)].filter((r) => r !== undefined),
      features([{ name: 'Containers' }, { name: 'NET-Framework-Features' }, { name: 'Hyper-V', tools: HYPERV_TOOLS }]),
      packageProvider('NuGet'),
      packageProvider('DockerMsftProvider'),
      docker(input),
      daemonJson(input),
      dockerService(),
      winnat(),
      natNetworks(),
      contrailDirs(),
      ...(runsContrail(input) ? [chocolateyPackages(), firewallOff()] : []),
      // A node without a subnet holds no overlay (its label may have been removed in this commit). Last:
      // removing the network needs Docker running. On a fresh node that costs one more read of the facts.
      ...(input.overlay ? [] : [windowsOverlayAbsent()]),
    ],
  };
}
