// The adapters the inventory names for a Windows node are adapters the node has: checked in prereqs, before anything
// is changed. Without it a misnamed WINDOWS_PHYSICAL_INTERFACE passes prereqs and the vRouter MSIs, then waits 120 s
// in the driver phase for "an address on Ethernet2 (DHCP)" on an adapter that does not exist, holding the disruption
// budget; a misnamed overlay_interface fails at `docker network create` with HNS's "An adapter was not found.".

import { errors } from '../../errors.js';
import { runsContrail, type WindowsRoleInput } from '../input.js';
import { compare, type Facts, type Resource } from '../resource.js';
import { factLines } from './parsers.js';

/**
 * The names Get-NetAdapter lists (windows-powershell-docs NetAdapter/Get-NetAdapter.md: the visible adapters,
 * physical and virtual, enabled or not; Name is the interface alias the other cmdlets take). In Windows PowerShell 5.1.
 */
export const ADAPTER_NAMES_FACT = { id: 'adapters.names', ps: '@(Get-NetAdapter -ErrorAction Stop | ForEach-Object { $_.Name })' };

/** What the inventory names, by the key it is named with: the vRouter's adapter, and the overlay's when another. */
function named(input: WindowsRoleInput): [key: string, adapter: string][] {
  const physical = runsContrail(input) && input.physicalInterface ? input.physicalInterface : undefined;
  const overlay = input.overlay?.adapter;
  return [
    ...(physical ? [['WINDOWS_PHYSICAL_INTERFACE', physical] as [string, string]] : []),
    ...(overlay && overlay.toLowerCase() !== physical?.toLowerCase() ? [['overlay_interface', overlay] as [string, string]] : []),
  ];
}

/** Windows compares adapter names without regard to case (Get-NetAdapter -Name ethernet1 finds Ethernet1). */
const has = (names: string[], adapter: string) => names.some((n) => n.toLowerCase() === adapter.toLowerCase());

/** None when the inventory names no adapter for the node (a Kubernetes worker without an overlay). */
export function namedAdapters(input: WindowsRoleInput): Resource | undefined {
  const wanted = named(input);
  if (wanted.length === 0) return undefined;
  const names = (facts: Facts) => factLines(facts.get(ADAPTER_NAMES_FACT.id));
  return {
    name: 'adapters/named',
    facts: [ADAPTER_NAMES_FACT],
    test: (facts) => compare(Object.fromEntries(wanted.map(([key, adapter]) => [`${key} ${adapter}`, [has(names(facts), adapter), true]]))),
    async set({ facts }) {
      const found = names(facts);
      const missing = wanted.filter(([, adapter]) => !has(found, adapter));
      const listed = found.length > 0 ? `it has ${found.join(', ')}` : 'Get-NetAdapter lists no adapter';
      throw errors.GC_ADAPTER_MISSING(
        `${missing.map(([key, adapter]) => `${key} ${adapter}`).join(' and ')} ${missing.length > 1 ? 'are not adapters' : 'is not an adapter'} of ${input.node}: ${listed}; nothing was changed`,
      );
    },
  };
}
