// The host's vNIC on the Contrail switch (the agent's vhost), which the CNM plugin creates. Server 2016 names
// it `vEthernet (HNSTransparent)`, Server 2019 after the physical adapter, `vEthernet (<adapter>)`: c-a-d
// 85486b9b "Handle Windows Server 2019 vhost friendly name" looks for either name, as here. (The agent's
// entrypoint.ps1 in contrail-controller takes `vEthernet (*)`, which would also match a transparent
// network's vNIC on another adapter: the overlay's.)

export const HNS_TRANSPARENT_VNIC = 'vEthernet (HNSTransparent)';

/** The two names the vhost adapter has, 2016's and 2019's. */
export function vhostNames(physical: string): [string, string] {
  return [HNS_TRANSPARENT_VNIC, `vEthernet (${physical})`];
}

/** PowerShell: the vhost adapter (Get-NetAdapter's object), or $null while the switch does not exist. */
export function vhostAdapter(physical: string, psQuote: (s: string) => string): string {
  const [on2016, on2019] = vhostNames(physical).map(psQuote);
  return `(Get-NetAdapter -ErrorAction SilentlyContinue | Where-Object { $_.Name -eq ${on2016} -or $_.Name -eq ${on2019} } | Select-Object -First 1)`;
}

/** Read from the host as c-a-d's "fetch network adapters information" reads it: both ifNames, the vhost's IPv4 address and gateway. */
export function hostAdaptersQuery(physical: string, psQuote: (s: string) => string): string {
  return [
    `$p = Get-NetAdapter -Name ${psQuote(physical)} -ErrorAction SilentlyContinue`,
    `$v = ${vhostAdapter(physical, psQuote)}`,
    // No address on the vhost yet (or none it will get: cnm-init.ts repairs that): nothing to configure yet.
    '$ip = $null; if ($p -and $v) { $ip = Get-NetIPAddress -InterfaceAlias $v.Name -AddressFamily IPv4 -ErrorAction SilentlyContinue | Select-Object -First 1 }',
    'if ($ip) { $gw = (Get-NetIPConfiguration -InterfaceAlias $v.Name).IPv4DefaultGateway; $g = $null; if ($gw) { $g = $gw.NextHop }; [pscustomobject]@{ physical = $p.ifName; vhost = $v.ifName; ip = $ip.IPAddress; prefix = $ip.PrefixLength; gateway = $g } } else { $null }',
  ].join('; ');
}
