// Parsers of what Windows tools print, tested against real output (test/fixtures/windows/).

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

/** Pending-reboot markers Windows keeps (what Ansible's win_reboot and PendingReboot check). */
export function isRebootPending(facts: {
  cbsRebootPending: unknown;
  pendingFileRenames: unknown;
  featureInstallPending: unknown;
}): boolean {
  const renames = facts.pendingFileRenames;
  const hasRenames = Array.isArray(renames)
    ? renames.some((r) => String(r).trim() !== '')
    : typeof renames === 'string' && renames.trim() !== '';
  return facts.cbsRebootPending === true || hasRenames || facts.featureInstallPending === true;
}
