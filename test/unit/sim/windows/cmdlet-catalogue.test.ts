// Every cmdlet the Windows roles emit, with the reference page it follows: every script the roles can emit
// (test/support/windows-scripts.ts: every phase's facts and sets, on a 2016 and a 2019 host, at each Contrail
// version, each resource's set forced on no facts and on the facts of a host that already has things, some drifted)
// is parsed; each command and named parameter is looked up in the simulator's catalogue, and each call's parameters
// must fit one of its sets. A cmdlet or parameter the catalogue lacks fails here; the list, with each parameter's
// type, is kept in test/fixtures/windows/emitted-cmdlets.txt (UPDATE_EMITTED=1 rewrites it).

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadPowerShellParser } from '../../../../src/sim/shells/powershell/parser.js';
import { catalogued, typeFits } from '../../../../src/sim/windows/catalogued.js';
import { type CatalogueEntry, catalogueEntry, parameterSetProblem } from '../../../../src/sim/windows/cmdlet-catalogue.js';
import { commandsOf, isCmdlet } from '../../../support/cmdlet-scan.js';
import { emittedWindowsScripts } from '../../../support/windows-scripts.js';

const LIST = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'windows', 'emitted-cmdlets.txt');
const COMMON = ['ErrorAction', 'WarningAction', 'Verbose', 'Debug', 'ErrorVariable', 'OutVariable'];
/** Native programs the roles run, and what each follows. */
const NATIVES: Record<string, string> = {
  bcdedit: 'bcdedit /enum, /set (learn.microsoft.com windows-hardware/drivers/devtest/bcdedit--set)',
  docker: 'docker CLI (pull, run, network create/rm/ls)',
  hostname: 'hostname (learn.microsoft.com windows-server/administration/windows-commands/hostname; c-a-d "run hostname command")',
  flow: 'flow -l (Juniper contrail-vrouter utils: the flow table through \\\\.\\vrouterFlow)',
  rt: 'rt --dump 0 --family bridge (contrail-vrouter utils; contrail-windows-tools Invoke-DiagnosticCheck.ps1: the bridge table device)',
  nssm: 'nssm install/set (nssm.cc/usage; contrail-windows-ci Service.ps1)',
  choco:
    'choco --version, list (--local-only before 2.0: docs.chocolatey.org "Upgrading to Chocolatey v2"), feature list/disable, install (c-a-d win_chocolatey, "disable enhanced exit codes")',
  pip: 'pip install (contrail-windows-ci Installation.ps1 Install-Nodemgr)',
  netsh: 'netsh interface portproxy (learn.microsoft.com windows-server/networking/technologies/netsh/netsh-interface-portproxy)',
  'sc.exe': 'sc.exe delete/qc/config/failure (learn.microsoft.com windows-server/administration/windows-commands/sc-*)',
  vif: 'vif --list (Juniper contrail-vrouter utils; contrail-windows-ci diagnostic check)',
  whoami: 'whoami /groups (learn.microsoft.com windows-server/administration/windows-commands/whoami)',
};

/** A parameter as written (exact, an alias or a unique prefix) to its proper name; as written when none fits. */
function fullName(entry: CatalogueEntry, written: string): string {
  const lower = written.toLowerCase();
  const exact = entry.parameters.get(lower);
  if (exact) return exact;
  const alias = Object.entries(entry.aliases).find(([, list]) => list.some((a) => a.toLowerCase() === lower))?.[0];
  if (alias) return alias;
  const prefixed = [...entry.parameters.values()].filter((p) => p.toLowerCase().startsWith(lower));
  return prefixed.length === 1 ? (prefixed[0] as string) : written;
}

let scripts: string[] = [];
beforeAll(async () => {
  scripts = (await emittedWindowsScripts()).map((e) => e.script);
}, 300_000);

describe('the cmdlet catalogue covers what the Windows roles emit', () => {
  it('every cmdlet and named parameter the roles send is in the catalogue, with its reference', async () => {
    const parser = await loadPowerShellParser();
    const used = new Map<string, Set<string>>();
    const problems: string[] = [];
    for (const script of scripts) {
      const tree = parser.parse(script);
      if (!tree) throw new Error(`unparsable script:\n${script}`);
      for (const c of commandsOf(tree)) {
        const key = isCmdlet(c.name) ? (catalogueEntry(c.name)?.name ?? c.name) : c.name.toLowerCase();
        const set = used.get(key) ?? new Set<string>();
        for (const p of c.parameters) set.add(p);
        used.set(key, set);
        // Each call's named parameters together must fit one parameter set of its page.
        const entry = isCmdlet(c.name) ? catalogueEntry(c.name) : undefined;
        const problem =
          entry &&
          parameterSetProblem(
            entry.name,
            c.parameters.map((p) => fullName(entry, p)),
          );
        if (problem) problems.push(`${entry.name} ${c.parameters.map((p) => `-${p}`).join(' ')}: ${problem}`);
      }
      tree.delete();
    }
    const lines: string[] = [];
    for (const [name, parameters] of [...used].sort(([a], [b]) => a.localeCompare(b))) {
      if (!isCmdlet(name)) {
        if (!NATIVES[name]) problems.push(`${name}: a native program with no reference in this test`);
        lines.push(`${name} (native): ${NATIVES[name] ?? '?'}`);
        continue;
      }
      const entry = catalogueEntry(name);
      if (!entry) {
        problems.push(`${name}: not in the catalogue`);
        continue;
      }
      const known = (p: string) => {
        const lower = p.toLowerCase();
        const names = [...entry.parameters.values(), ...COMMON, ...(entry.shouldProcess ? ['WhatIf', 'Confirm'] : [])];
        const aliases = Object.values(entry.aliases).flat();
        return (
          names.some((n) => n.toLowerCase() === lower) ||
          aliases.some((a) => a.toLowerCase() === lower) ||
          names.filter((n) => n.toLowerCase().startsWith(lower)).length === 1
        );
      };
      for (const p of parameters) if (!known(p)) problems.push(`${name} -${p}: not a parameter of ${entry.doc}`);
      // Each parameter with its type as the page gives it (cmdlet-catalogue-types.ts), where the page is in the corpus.
      const typed = (p: string) => {
        const type = entry.types.get(entry.parameters.get(p.toLowerCase())?.toLowerCase() ?? p.toLowerCase());
        return type ? `-${p}:${type.replace(/^System\.(Management\.Automation\.)?/, '')}` : `-${p}`;
      };
      lines.push(`${name} ${[...parameters].sort().map(typed).join(' ')}\n    ${entry.doc}`.replace(/ \n/, '\n'));
    }
    expect(problems).toEqual([]);
    const text = `${lines.join('\n')}\n`;
    if (process.env.UPDATE_EMITTED) writeFileSync(LIST, text);
    expect(text).toBe(readFileSync(LIST, 'utf8'));
    expect(used.size).toBeGreaterThan(40);
  });
});

describe('parameter types against the reference pages', () => {
  it('a simulated parameter must take what the documented type takes', () => {
    expect(typeFits('switch', 'System.Management.Automation.SwitchParameter')).toBe(true);
    expect(typeFits('string', 'SwitchParameter')).toBe(false);
    expect(typeFits('string[]', 'System.String[]')).toBe(true);
    expect(typeFits('string[]', 'AddressFamily[]')).toBe(true);
    // A documented list declared as one value would refuse what PowerShell accepts, and the reverse.
    expect(typeFits('string', 'System.String[]')).toBe(false);
    expect(typeFits('string[]', 'String')).toBe(false);
    expect(typeFits('int', 'Int32')).toBe(true);
    expect(typeFits('string', 'UInt32')).toBe(false);
  });

  it('a call mixing parameters of two sets fits none (what the scan checks for each emitted call)', () => {
    expect(parameterSetProblem('Get-Content', ['Path', 'LiteralPath'])).toMatch(/Parameter set cannot be resolved/);
    expect(parameterSetProblem('Get-Content', ['LiteralPath', 'Raw', 'ErrorAction'])).toBeUndefined();
  });

  it('a simulated cmdlet declaring a type its page does not have stops the simulator at start', () => {
    const spec = { name: 'Get-VMSwitch', params: { Name: { type: 'string[]' as const } }, run: () => [] };
    expect(() => catalogued(spec)).toThrow(/declares -Name as string\[\]; its reference page has String/);
    expect(() => catalogued({ ...spec, params: { Name: { type: 'string' as const } } })).not.toThrow();
  });
});
