// Parsers of what Windows tools print, tested against real output (test/fixtures/windows/).

import { errors } from '../../errors.js';

/** `bcdedit /enum {current}` lines: is `testsigning Yes` set? (Absent means No.) */
export function parseBcdTestSigning(lines: string[] | string | null): boolean {
  const text = Array.isArray(lines) ? lines.join('\n') : (lines ?? '');
  return /^testsigning\s+Yes\s*$/im.test(text);
}

/** `Get-Package -ProviderName msi | Select-Object Name, Version, FastPackageReference` as JSON (one object or a list). */
export interface InstalledMsi {
  name: string;
  version: string;
  productCode: string;
}

export function parseMsiPackages(value: unknown): InstalledMsi[] {
  const list = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  return list
    .filter(
      (p): p is { Name: string; Version: string; FastPackageReference?: string } => typeof p === 'object' && p !== null && 'Name' in p,
    )
    .map((p) => ({ name: p.Name, version: String(p.Version), productCode: String(p.FastPackageReference ?? '') }));
}

/** A PowerShell fact as lines: a list comes back as a list, one item as itself, none as null. */
export function factLines(value: unknown): string[] {
  return (Array.isArray(value) ? value : value === null || value === undefined || value === '' ? [] : [value]).map(String);
}

export interface PortProxy {
  listenAddress: string;
  listenPort: number;
  connectAddress: string;
  connectPort: number;
}

/** `netsh interface portproxy show v4tov4`: rows of four columns under a dashed rule (nothing when empty). */
export function parsePortProxies(lines: unknown): PortProxy[] {
  const text = factLines(lines).join('\n');
  const rows = text.split(/\r?\n/).filter((l) => /^\s*\d{1,3}(\.\d{1,3}){3}|^\s*\*\s/.test(l));
  return rows.flatMap((row) => {
    const [listenAddress, listenPort, connectAddress, connectPort] = row.trim().split(/\s+/);
    if (!listenAddress || !connectAddress) return [];
    return [{ listenAddress, listenPort: Number(listenPort), connectAddress, connectPort: Number(connectPort) }];
  });
}

/** `sc.exe qc NAME`: the service's binary path, start type and dependencies (null when it does not exist). */
export function parseScQc(lines: unknown): { binaryPath: string; startType: string; dependencies: string[] } | null {
  const text = factLines(lines);
  if (!text.some((l) => /QueryServiceConfig SUCCESS/.test(l))) return null;
  const field = (name: string) => {
    const at = text.findIndex((l) => new RegExp(`^\\s*${name}\\s*:`).test(l));
    return at < 0 ? { value: '', at } : { value: (text[at] as string).replace(/^[^:]*:\s?/, '').trim(), at };
  };
  // Further dependencies follow on lines of their own, indented under the first.
  const deps = field('DEPENDENCIES');
  const dependencies = deps.value ? [deps.value] : [];
  for (let i = deps.at + 1; deps.at >= 0 && i < text.length && /^\s+:\s*\S/.test(text[i] as string); i++)
    dependencies.push((text[i] as string).replace(/^\s+:\s*/, '').trim());
  return {
    binaryPath: field('BINARY_PATH_NAME').value,
    // `2   AUTO_START`, or `2   AUTO_START  (DELAYED)` for a delayed start (sc-qc-sense-delayed.txt): the name after the code.
    startType: /^\d+\s+(\S+)/.exec(field('START_TYPE').value)?.[1] ?? '',
    dependencies,
  };
}

/** `sc.exe qfailure NAME`: the failure actions as sc.exe's own `actions=` syntax (`restart/10000/...`). */
export function parseScFailure(lines: unknown): { resetSeconds: number; actions: string } | null {
  const text = factLines(lines);
  if (!text.some((l) => /QueryServiceConfig2 SUCCESS/.test(l))) return null;
  const reset = text.map((l) => /RESET_PERIOD.*:\s*(\d+)/.exec(l)?.[1]).find(Boolean);
  const actions = text
    .map((l) => /(RESTART|REBOOT|RUN PROCESS) -- Delay = (\d+) milliseconds/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => `${(m[1] as string).split(' ')[0]?.toLowerCase()}/${m[2]}`);
  return { resetSeconds: Number(reset ?? 0), actions: actions.join('/') };
}

/** One interface of `vif --list`: its index, how it is attached (OS, PCI, PMD, Socket), its name and Type. */
export interface Vif {
  vif: string;
  attach: string;
  name: string;
  type: string;
}

/**
 * `vif --list` (the vRouter's utilities): a `vifX/Y  KIND: NAME ...` line per interface, then its
 * `Type:...` line (test/fixtures/windows/vif-list-vtest.txt is the tool's real output).
 */
export function parseVifList(lines: unknown): Vif[] {
  const text = factLines(lines).join('\n');
  const out: Vif[] = [];
  const re = /^(vif\d+\/\d+)\s+(\w+):\s+(\S+)[^\n]*\n\s+Type:(\S+)/gm;
  for (let m = re.exec(text); m !== null; m = re.exec(text))
    out.push({ vif: m[1] as string, attach: m[2] as string, name: m[3] as string, type: m[4] as string });
  return out;
}

/**
 * `docker network ls --quiet`: one network ID a line, shortened to 12 hex digits (docker/cli
 * docs/reference/commandline/network_ls.md: `-q, --quiet  Only display network IDs`, the IDs column). Any other
 * line is refused: the orphan check compares these with HNS names, and a line that is not an ID would make
 * every Contrail network look orphaned.
 */
export function parseNetworkIds(lines: unknown): string[] {
  const ids = factLines(lines)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const bad = ids.find((l) => !/^[0-9a-f]{12}$/.test(l));
  if (bad !== undefined) throw errors.GC_FACTS_FAILED(`docker network ls --quiet printed ${JSON.stringify(bad)}, not a network ID`);
  return ids;
}
