// The name the node's virtual-router has in the config API, and the agent's hostname with it: the host's own name
// in its own letter case, with provider_config's domainsuffix (c-a-d contrail_vrouter_windows: "run hostname
// command", then "nodemgr sends hostname with original letter case", then "append DNS suffix to FQDN if supplied").

import type { Facts } from '../resource.js';

/** hostname.exe's last line, as c-a-d reads it (`hostname_output.stdout_lines | last`). */
export const HOST_NAME_FACT = { id: 'host.name', ps: '[string](@(hostname)[-1])' };

/** The name, or undefined while the host has not said its own. */
export function routerName(facts: Facts, domainSuffix: string | undefined): string | undefined {
  const own = String(facts.get(HOST_NAME_FACT.id) ?? '').trim();
  if (own === '') return undefined;
  return domainSuffix ? `${own}.${domainSuffix}` : own;
}
