// The rest of c-a-d's install_software_Win32NT.yml after the features and Docker: Chocolatey (installed where
// missing) with enhanced exit codes off, Python 2.7.13, NSSM, the Visual C++ 2013 and 14 runtimes and the compiler for Python 2.7 from it
// (win_chocolatey), and Windows Firewall off on its three profiles (win_firewall; contrail-windows-ci's
// diagnostic check: "firewall is turned off").

import { psQuote } from '../../dataplane/quote.js';
import { setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { factLines } from './parsers.js';

const CHOCO = 'C:\\ProgramData\\chocolatey\\bin\\choco.exe';
/**
 * c-a-d install_software_Win32NT.yml's packages: python2 pinned at 2.7.13, nssm, the VC++ 2013 runtime
 * (vcredist2013) and the compiler for Python 2.7 nodemgr's dependencies build with (vcpython27: "This is needed
 * by nodemgr"). c-a-d's vcredist2015 is the VC++ 14 runtime, Chocolatey's vcredist140 here.
 */
export const CHOCO_PACKAGES: readonly { name: string; version?: string }[] = [
  { name: 'python2', version: '2.7.13' },
  { name: 'nssm' },
  { name: 'vcredist2013' },
  { name: 'vcredist140' },
  { name: 'vcpython27' },
];
/**
 * Chocolatey where missing, as c-a-d's "install chocolatey" and Chocolatey's own instructions
 * (docs.chocolatey.org/en-us/choco/setup): execution policy Bypass for this process, TLS 1.2 offered (Windows
 * PowerShell 5.1 offers only SSL 3 and TLS 1.0 unless told; the site takes TLS 1.2 only), install.ps1 evaluated.
 */
const INSTALL_CHOCOLATEY = [
  'Set-ExecutionPolicy -ExecutionPolicy Bypass -Scope Process -Force',
  '[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor 3072',
  "Invoke-Expression ((Invoke-WebRequest -Uri 'https://community.chocolatey.org/install.ps1' -UseBasicParsing).Content)",
];
/** c-a-d: "disable enhanced exit codes in chocolatey" (0.10.13's new codes broke win_chocolatey). */
const ENHANCED = 'useEnhancedExitCodes';

/**
 * Chocolatey's release, its packages and the enhanced exit codes feature, or $null without Chocolatey. The
 * packages are listed in the form the release accepts: `list --local-only` up to 1.x; 2.0 lists local packages
 * only and refuses --local-only (docs.chocolatey.org "Upgrading to Chocolatey v2"). Exit 2 of `list` is "nothing
 * found" under enhanced exit codes (chocolatey/choco#1758). 0.10.11 has no such feature: no line for it.
 */
const CHOCO_FACT = {
  id: 'choco',
  ps: [
    `if (Test-Path -LiteralPath ${psQuote(CHOCO)}) {`,
    `$v = [string](@(& ${psQuote(CHOCO)} --version)[-1]);`,
    `if ([int]($v.Split('.')[0]) -ge 2) { $o = @(& ${psQuote(CHOCO)} list --limit-output) } else { $o = @(& ${psQuote(CHOCO)} list --local-only --limit-output) };`,
    'if ($LASTEXITCODE -ne 0 -and $LASTEXITCODE -ne 2) { throw "choco list exited with $LASTEXITCODE" };',
    `$f = @(& ${psQuote(CHOCO)} feature list --limit-output | Where-Object { $_ -like '${ENHANCED}|*' });`,
    "$e = $null; if ($f.Count -gt 0) { $e = $f[0].Split('|')[1] };",
    '[pscustomobject]@{ version = $v; packages = $o; enhancedExitCodes = $e }',
    '} else { $null }',
  ].join(' '),
};

interface ChocoFact {
  version: string;
  packages: unknown;
  enhancedExitCodes: string | null;
}

const installed = (lines: unknown) =>
  new Map(
    factLines(lines)
      .map((l) => l.trim().split('|') as [string, string])
      .map(([n, v]) => [n.toLowerCase(), v]),
  );

export function chocolateyPackages(): Resource {
  return {
    name: 'chocolatey/packages',
    facts: [CHOCO_FACT],
    test(facts) {
      const choco = facts.get(CHOCO_FACT.id) as ChocoFact | null;
      const have = installed(choco?.packages);
      return compare({
        Chocolatey: [choco ? 'installed' : null, 'installed'],
        // Disabled, or a release without the feature (before 0.10.12): exit codes as c-a-d expects them.
        [ENHANCED]: [choco?.enhancedExitCodes ?? 'Disabled', 'Disabled'],
        // A pinned package is compared by the version installed (`name|version` lines of --limit-output); the
        // others by being there at all.
        ...Object.fromEntries(
          CHOCO_PACKAGES.map((p) => {
            const version = have.get(p.name);
            return [p.name, [version === undefined ? null : p.version ? version : 'any', p.version ?? 'any']];
          }),
        ),
      });
    },
    async set({ exec, facts, signal }) {
      const choco = facts.get(CHOCO_FACT.id) as ChocoFact | null;
      const have = installed(choco?.packages);
      const steps = [
        ...(choco ? [] : INSTALL_CHOCOLATEY),
        // A Chocolatey just installed is disabled explicitly, as c-a-d does right after installing it.
        ...(!choco || choco.enhancedExitCodes === 'Enabled'
          ? [`& ${psQuote(CHOCO)} feature disable --name ${ENHANCED}\nif ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }`]
          : []),
        ...CHOCO_PACKAGES.filter((p) => !have.has(p.name)).map(
          (p) =>
            `& ${psQuote(CHOCO)} install ${p.name} -y --no-progress${p.version ? ` --version ${p.version}` : ''}\nif ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }`,
        ),
      ];
      return setByCommand(exec, steps.join('\n'), choco ? 'Chocolatey packages' : 'install Chocolatey and its packages', { signal });
    },
  };
}

export function firewallOff(): Resource {
  const id = 'firewall.enabled';
  return {
    name: 'firewall',
    facts: [
      { id, ps: "@(Get-NetFirewallProfile -Name 'Domain','Private','Public' | Where-Object { $_.Enabled } | ForEach-Object { $_.Name })" },
    ],
    test: (facts) => compare({ EnabledProfiles: [factLines(facts.get(id)), []] }),
    async set({ exec, signal }) {
      return setByCommand(exec, "Set-NetFirewallProfile -Name 'Domain','Private','Public' -Enabled False", 'turn Windows Firewall off', {
        signal,
      });
    },
  };
}
