// Windows prerequisites: the Containers and Hyper-V features, Docker at the desired version with
// "bridge":"none", WinNAT stopped and disabled, no stale NAT networks, Contrail's directories.

import { psQuote } from '../../dataplane/quote.js';
import type { WindowsRoleInput } from '../input.js';
import { applied, change, type Phase } from '../phase.js';
import { compare, NO_CHANGE, type Resource } from '../resource.js';
import { windowsOverlayAbsent } from './overlay.js';
import { serviceStatus } from './queries.js';

export const CONTRAIL_DIRS = [
  'C:\\ProgramData\\Contrail',
  'C:\\ProgramData\\Contrail\\etc\\contrail',
  'C:\\ProgramData\\Contrail\\var\\log\\contrail',
  'C:\\ProgramData\\Contrail\\var\\lib\\contrail',
];
const DAEMON_JSON = 'C:\\ProgramData\\docker\\config\\daemon.json';

function feature(name: string): Resource {
  const id = `feature.${name}`;
  return {
    name: `feature/${name}`,
    sharesReboot: true,
    facts: [{ id, ps: `(Get-WindowsFeature -Name ${psQuote(name)}).InstallState.ToString()` }],
    test: (facts) => compare({ InstallState: [facts.get(id), 'Installed'] }),
    async set({ exec, facts, signal }) {
      // InstallPending: installed, waiting for the reboot only.
      if (facts.get(id) === 'Available')
        await change(exec, `Install-WindowsFeature -Name ${psQuote(name)} | Out-Null`, `install feature ${name}`, {
          signal,
        });
      return { changed: facts.get(id) === 'Available', rebootRequested: true };
    },
  };
}

function docker(input: WindowsRoleInput): Resource {
  return {
    name: 'docker/package',
    facts: [
      { id: 'docker.version', ps: "(Get-Package -Name 'docker' -ProviderName 'DockerMsftProvider' -ErrorAction SilentlyContinue).Version" },
    ],
    test(facts) {
      const installed = facts.get('docker.version') as string | null;
      const wanted = input.dockerVersion ?? (installed ? installed : 'any');
      return compare({ Version: [installed, wanted] });
    },
    async set({ exec, signal }) {
      const version = input.dockerVersion ? ` -RequiredVersion ${psQuote(input.dockerVersion)}` : '';
      return applied(
        exec,
        `Install-Package -Name 'docker' -ProviderName 'DockerMsftProvider'${version} -Force | Out-Null`,
        'install docker',
        { signal },
      );
    },
  };
}

function daemonJson(): Resource {
  return {
    name: 'docker/daemon.json',
    facts: [
      {
        id: 'docker.daemonJson',
        ps: `if (Test-Path -LiteralPath ${psQuote(DAEMON_JSON)}) { Get-Content -LiteralPath ${psQuote(DAEMON_JSON)} -Raw } else { $null }`,
      },
      { id: 'docker.status', ps: serviceStatus('docker') },
    ],
    test(facts) {
      let bridge: unknown = null;
      try {
        bridge = (JSON.parse(String(facts.get('docker.daemonJson') ?? 'null')) as { bridge?: unknown } | null)?.bridge ?? null;
      } catch {
        bridge = 'unreadable';
      }
      return compare({ bridge: [bridge, 'none'] });
    },
    async set({ exec, facts, signal }) {
      let current: Record<string, unknown> = {};
      try {
        current = (JSON.parse(String(facts.get('docker.daemonJson') ?? '{}')) as Record<string, unknown>) ?? {};
      } catch {
        current = {};
      }
      const content = JSON.stringify({ ...current, bridge: 'none' });
      const restart = facts.get('docker.status') === 'Running' ? "\nRestart-Service -Name 'docker' -Force" : '';
      return applied(
        exec,
        `New-Item -ItemType Directory -Path 'C:\\ProgramData\\docker\\config' -Force | Out-Null\nSet-Content -LiteralPath ${psQuote(DAEMON_JSON)} -Value ${psQuote(content)} -NoNewline${restart}`,
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
      return applied(exec, "Set-Service -Name 'docker' -StartupType Automatic\nStart-Service -Name 'docker'", 'start docker', {
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
      return applied(
        exec,
        "Stop-Service -Name 'winnat' -Force\nSet-Service -Name 'winnat' -StartupType Disabled",
        'stop and disable WinNAT',
        { signal },
      );
    },
  };
}

function natNetworks(): Resource {
  return {
    name: 'nat-networks',
    facts: [
      { id: 'hns.nat', ps: "@(Get-HnsNetwork | Where-Object { $_.Type -eq 'NAT' } | ForEach-Object { $_.Name })" },
      { id: 'netnat', ps: '@(Get-NetNat | ForEach-Object { $_.Name })' },
    ],
    test: (facts) => compare({ HnsNatNetworks: [facts.get('hns.nat') ?? [], []], NetNat: [facts.get('netnat') ?? [], []] }),
    async set({ exec, signal }) {
      return applied(
        exec,
        "Get-HnsNetwork | Where-Object { $_.Type -eq 'NAT' } | Remove-HnsNetwork\nGet-NetNat | Remove-NetNat -Confirm:$false",
        'remove NAT networks',
        { signal },
      );
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
      return applied(
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
      feature('Containers'),
      feature('Hyper-V'),
      docker(input),
      daemonJson(),
      dockerService(),
      winnat(),
      natNetworks(),
      contrailDirs(),
      // A node without a subnet holds no overlay (its label may have been removed in this commit). Last:
      // removing the network needs Docker running. On a fresh node that costs one more read of the facts.
      ...(input.overlay ? [] : [windowsOverlayAbsent()]),
    ],
  };
}
