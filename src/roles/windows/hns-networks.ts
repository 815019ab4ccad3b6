// The host's HNS networks on both builds. Server 2016 lists them with the Containers module's
// Get-ContainerNetwork; Server 2019 has no such cmdlet and lists them with the HNS module's Get-HnsNetwork.
// Chosen as Contrail's own scripts choose (contrail-windows-ci 35ad8cf0 "Use HnsNetwork cmdlets",
// contrail-windows-tools 197ae94 "Make cleanup script work on Windows Server 2019"): whichever
// `Get-Command -Name Get-ContainerNetwork` finds, else Get-HnsNetwork; c-a-d's install_software_Win32NT.yml
// does the same by the Server version.

import { psQuote } from '../../dataplane/quote.js';
import { CONTAINERS_INSTALLED } from './queries.js';

const HAS_CONTAINER_CMDLETS = '(Get-Command -Name Get-ContainerNetwork -ErrorAction SilentlyContinue)';
const HAS_HNS_CMDLETS = '(Get-Command -Name Get-HnsNetwork -ErrorAction SilentlyContinue)';
const NEITHER = "throw 'neither Get-ContainerNetwork nor Get-HnsNetwork is available, though the Containers feature is installed'";

/**
 * PowerShell: `$hns`, every HNS network as `{ name, type, adapter, subnet, gateway }` (an empty list until the
 * Containers feature is installed: before it there are none). Get-ContainerNetwork's Mode is HNS's Type.
 */
export const HNS_NETWORKS = [
  '$hns = @()',
  `if (${CONTAINERS_INSTALLED}) {`,
  `  if (${HAS_CONTAINER_CMDLETS}) { $hns = @(Get-ContainerNetwork | ForEach-Object { [pscustomobject]@{ name = $_.Name; type = $_.Mode; adapter = $_.NetworkAdapterName; subnet = $_.SubnetPrefix; gateway = $_.GatewayAddress } }) }`,
  `  elseif (${HAS_HNS_CMDLETS}) { $hns = @(Get-HnsNetwork | ForEach-Object { $s = @($_.Subnets) | Select-Object -First 1; [pscustomobject]@{ name = $_.Name; type = $_.Type; adapter = $_.NetworkAdapterName; subnet = $s.AddressPrefix; gateway = $s.GatewayAddress } }) }`,
  `  else { ${NEITHER} }`,
  '}',
].join('\n');

/** The names of the HNS networks whose name is like the pattern (PowerShell -like). */
export function hnsNetworkNames(like: string): string {
  return `${HNS_NETWORKS}\n@($hns | Where-Object { $_.name -like ${psQuote(like)} } | ForEach-Object { $_.name })`;
}

/** The HNS network named so, as `{ type, subnet, gateway, adapter }`, or $null. */
export function hnsNetwork(name: string): string {
  return `${HNS_NETWORKS}\n$n = $hns | Where-Object { $_.name -eq ${psQuote(name)} } | Select-Object -First 1\nif ($n) { [pscustomobject]@{ type = $n.type; subnet = $n.subnet; gateway = $n.gateway; adapter = $n.adapter } } else { $null }`;
}

/**
 * PowerShell removing the HNS networks of the given type (Transparent, NAT), with the cmdlets the build has:
 * `Remove-ContainerNetwork -Force` on 2016, `Remove-HnsNetwork` on 2019 (c-a-d install_software_Win32NT.yml).
 */
export function removeHnsNetworksOfType(type: string): string {
  return [
    `if (${HAS_CONTAINER_CMDLETS}) { Get-ContainerNetwork | Where-Object { $_.Mode -eq ${psQuote(type)} } | Remove-ContainerNetwork -Force }`,
    `elseif (${HAS_HNS_CMDLETS}) { Get-HnsNetwork | Where-Object { $_.Type -eq ${psQuote(type)} } | Remove-HnsNetwork }`,
  ].join('\n');
}

/**
 * PowerShell removing the HNS networks bound to the adapter (contrail-windows-ci Disable-VRouterExtension:
 * `Where-Object NetworkAdapterName -eq <adapter>`, with the Containers or the HNS cmdlets).
 */
export function hnsNetworksOnAdapterRemoved(adapter: string): string {
  return [
    `if (${HAS_CONTAINER_CMDLETS}) { Get-ContainerNetwork | Where-Object { $_.NetworkAdapterName -eq ${psQuote(adapter)} } | Remove-ContainerNetwork -Force }`,
    `elseif (${HAS_HNS_CMDLETS}) { Get-HnsNetwork | Where-Object { $_.NetworkAdapterName -eq ${psQuote(adapter)} } | Remove-HnsNetwork }`,
  ].join('\n');
}
