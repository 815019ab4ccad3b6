// One MSI product at one version: a different version is removed first, so reverting a commit downgrades.

import { psQuote } from '../../dataplane/quote.js';
import { change } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { msiOutcome, runMsiexec } from './msi.js';
import { type InstalledMsi, parseMsiPackages } from './parsers.js';

export const MSI_PACKAGES_FACT = {
  id: 'msi.packages',
  ps: "@(Get-Package -ProviderName 'msi' -ErrorAction SilentlyContinue | Select-Object -Property 'Name','Version','FastPackageReference')",
};

export interface MsiProduct {
  /** The product name Windows Installer records (what Get-Package shows). */
  product: string;
  file: string;
  version: string;
  disruptive?: boolean;
}

export function installed(facts: ReadonlyMap<string, unknown>, product: string): InstalledMsi | undefined {
  return parseMsiPackages(facts.get(MSI_PACKAGES_FACT.id)).find((p) => p.name === product);
}

export function msiResource(m: MsiProduct): Resource {
  const logName = m.file.replace(/^.*\\/, '').replace(/\.msi$/i, '');
  return {
    name: `msi/${logName}`,
    facts: [MSI_PACKAGES_FACT],
    ...(m.disruptive ? { disruptive: true } : {}),
    test: (facts) => compare({ Version: [installed(facts, m.product)?.version ?? null, m.version] }),
    async set({ exec, facts, signal }) {
      let rebootRequested = false;
      const current = installed(facts, m.product);
      if (current) {
        const out = await runMsiexec(exec, 'uninstall', current.productCode, `${logName}-uninstall-${current.version}`, signal);
        rebootRequested = msiOutcome('uninstall', out.exitCode, `removing ${m.product} ${current.version}`, out.logTail).rebootRequested;
      }
      const out = await runMsiexec(exec, 'install', m.file, `${logName}-${m.version}`, signal);
      rebootRequested =
        msiOutcome('install', out.exitCode, `installing ${m.product} ${m.version}`, out.logTail).rebootRequested || rebootRequested;
      return { changed: true, rebootRequested };
    },
  };
}

/** A service defined with New-Service if missing (the agent MSI ships binaries, not services). */
export function serviceDefined(name: string, binaryPath: string, startType: 'Automatic' | 'Manual'): Resource {
  const id = `service.${name}.defined`;
  return {
    name: `service/${name}/defined`,
    facts: [{ id, ps: `[bool](Get-Service -Name ${psQuote(name)} -ErrorAction SilentlyContinue)` }],
    test: (facts) => compare({ Defined: [facts.get(id), true] }),
    async set({ exec, signal }) {
      await change(
        exec,
        `New-Service -Name ${psQuote(name)} -BinaryPathName ${psQuote(binaryPath)} -StartupType ${startType} | Out-Null`,
        `define service ${name}`,
        { signal },
      );
      return { changed: true, rebootRequested: false };
    },
  };
}
