// One MSI product at one version: a different version is removed first, so reverting a commit downgrades.

import { psQuote } from '../../dataplane/quote.js';
import { compare, type FactQuery, type Resource } from '../resource.js';
import { msiOutcome, runMsiexec } from './msi.js';
import { type InstalledMsi, parseMsiPackages } from './parsers.js';

export const MSI_PACKAGES_FACT = {
  id: 'msi.packages',
  ps: "@(Get-Package -ProviderName 'msi' -ErrorAction SilentlyContinue | Select-Object -Property 'Name','Version','FastPackageReference')",
};

export interface MsiProduct {
  /** The product name Windows Installer records (what Get-Package shows: msi-products.ts). */
  product: string;
  file: string;
  /** The Contrail version whose image shipped the MSI. */
  version: string;
  disruptive?: boolean;
}

export function installed(facts: ReadonlyMap<string, unknown>, product: string): InstalledMsi | undefined {
  return parseMsiPackages(facts.get(MSI_PACKAGES_FACT.id)).find((p) => p.name === product);
}

/**
 * Where groundcrew records the Contrail build it installed a product from: Windows Installer cannot say (every
 * build has the same product code and version, msi-products.ts).
 */
export const MSI_RECORD_DIR = 'C:\\ProgramData\\Contrail\\var\\lib\\groundcrew\\msi';
const slug = (product: string) => product.replace(/\W+/g, '-');
/** The file holding the build groundcrew installed `product` from. */
export const buildRecordPath = (product: string): string => `${MSI_RECORD_DIR}\\${slug(product)}.build`;

/** The recorded build of `product`, or $null. */
export function buildFact(product: string): FactQuery {
  const path = psQuote(buildRecordPath(product));
  return {
    id: `msi.build.${slug(product)}`,
    ps: `if (Test-Path -LiteralPath ${path}) { (Get-Content -LiteralPath ${path} -Raw).Trim() } else { $null }`,
  };
}

/** Installed without a record (by hand, or by another tool): its build is not known, so it is not the one wanted. */
export const UNKNOWN_BUILD = 'unknown: installed without groundcrew';

/** The Contrail build `product` is installed from, or null when it is not installed. */
export function installedBuild(facts: ReadonlyMap<string, unknown>, product: string): string | null {
  if (!installed(facts, product)) return null;
  const recorded = facts.get(buildFact(product).id);
  return typeof recorded === 'string' && recorded !== '' ? recorded : UNKNOWN_BUILD;
}

export function msiResource(m: MsiProduct): Resource {
  const logName = m.file.replace(/^.*\\/, '').replace(/\.msi$/i, '');
  return {
    name: `msi/${logName}`,
    facts: [MSI_PACKAGES_FACT, buildFact(m.product)],
    ...(m.disruptive ? { disruptive: true } : {}),
    test: (facts) => compare({ Build: [installedBuild(facts, m.product), m.version] }),
    async set({ exec, facts, signal }) {
      let rebootRequested = false;
      const current = installed(facts, m.product);
      if (current) {
        // The same product code for every build: the one installed is removed first (msiexec /i would say 1638).
        const build = installedBuild(facts, m.product) ?? '';
        const out = await runMsiexec(exec, 'uninstall', current.productCode, `${logName}-uninstall-${slug(build)}`, signal);
        rebootRequested = msiOutcome('uninstall', out.exitCode, `removing ${m.product} (${build})`, out.logTail).rebootRequested;
      }
      // The build is recorded in the same command, once msiexec succeeded.
      const record = [
        `New-Item -ItemType Directory -Path ${psQuote(MSI_RECORD_DIR)} -Force | Out-Null`,
        `Set-Content -LiteralPath ${psQuote(buildRecordPath(m.product))} -Value ${psQuote(m.version)} -Encoding ASCII`,
      ].join('\n');
      const out = await runMsiexec(exec, 'install', m.file, `${logName}-${m.version}`, signal, record);
      rebootRequested =
        msiOutcome('install', out.exitCode, `installing ${m.product} ${m.version}`, out.logTail).rebootRequested || rebootRequested;
      return { changed: true, rebootRequested };
    },
  };
}
