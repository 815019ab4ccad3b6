// The rest of c-a-d's install_software_Win32NT.yml after the features and Docker: Python 2.7.13, NSSM and
// the Visual C++ 14 runtime from Chocolatey (win_chocolatey), and Windows Firewall off on its three
// profiles (win_firewall; contrail-windows-ci's diagnostic check: "firewall is turned off").

import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { applied } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { factLines } from './parsers.js';

const CHOCO = 'C:\\ProgramData\\chocolatey\\bin\\choco.exe';
/** Package and the version c-a-d pins (python2 2.7.13; the others unpinned). */
export const CHOCO_PACKAGES: readonly { name: string; version?: string }[] = [
  { name: 'python2', version: '2.7.13' },
  { name: 'nssm' },
  { name: 'vcredist140' },
];

export function chocolateyPackages(): Resource {
  const id = 'choco.packages';
  const installed = (lines: unknown) =>
    new Map(
      factLines(lines)
        .map((l) => l.trim().split('|') as [string, string])
        .map(([n, v]) => [n.toLowerCase(), v]),
    );
  return {
    name: 'chocolatey/packages',
    facts: [
      {
        id,
        // No Chocolatey: no packages (the set says how to get it). Its list failing is a fact that cannot be read.
        ps: `if (Test-Path -LiteralPath ${psQuote(CHOCO)}) { $o = @(& ${psQuote(CHOCO)} list --local-only --limit-output); if ($LASTEXITCODE -ne 0) { throw "choco list exited with $LASTEXITCODE" }; $o } else { $null }`,
      },
      { id: 'choco.present', ps: `Test-Path -LiteralPath ${psQuote(CHOCO)}` },
    ],
    test(facts) {
      const have = installed(facts.get(id));
      return compare(
        // A pinned package is compared by the version installed (`name|version` lines of --limit-output); the
        // others by being there at all.
        Object.fromEntries(
          CHOCO_PACKAGES.map((p) => {
            const version = have.get(p.name);
            return [p.name, [version === undefined ? null : p.version ? version : 'any', p.version ?? 'any']];
          }),
        ),
      );
    },
    async set({ exec, facts, signal }) {
      if (facts.get('choco.present') !== true)
        throw errors.GC_SET_FAILED(
          `Chocolatey is not on the node (${CHOCO}): groundcrew installs python2, nssm and vcredist140 with it, as c-a-d does; install Chocolatey on the image`,
        );
      const have = installed(facts.get(id));
      const steps = CHOCO_PACKAGES.filter((p) => !have.has(p.name)).map(
        (p) =>
          `& ${psQuote(CHOCO)} install ${p.name} -y --no-progress${p.version ? ` --version ${p.version}` : ''}\nif ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }`,
      );
      return applied(exec, steps.join('\n'), 'install python2, nssm, vcredist140', { signal });
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
      return applied(exec, "Set-NetFirewallProfile -Name 'Domain','Private','Public' -Enabled False", 'turn Windows Firewall off', {
        signal,
      });
    },
  };
}
