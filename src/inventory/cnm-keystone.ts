// The Windows CNM plugin authenticates with Identity v2.0 only: its client (contrail-go-api KeystoneClient.
// Authenticate, as contrail-windows-docker-driver builds it) posts {"auth": {"tenantName", "passwordCredentials"}}
// to <Os_auth_url>/tokens, and Os_auth_url ends in KEYSTONE_AUTH_URL_VERSION (c-a-d's contrail-cnm-plugin.conf.j2).

import { configText } from './configuration.js';
import type { Configuration } from './desired-state.js';

/** Why the node's CNM plugin would get no token from Keystone, or undefined when it can. */
export function cnmKeystoneProblem(name: string, roles: readonly string[], configuration: Configuration): string | undefined {
  if (!roles.includes('win_cnm_plugin') || configText(configuration, 'AUTH_MODE') !== 'keystone') return undefined;
  const version = configText(configuration, 'KEYSTONE_AUTH_URL_VERSION');
  if (version === undefined || /^\/v2\.0\/?$/.test(version)) return undefined;
  return `node "${name}" runs win_cnm_plugin with AUTH_MODE keystone, but KEYSTONE_AUTH_URL_VERSION is ${version}: the plugin's Keystone client speaks Identity v2.0 only (it posts to <Os_auth_url>/tokens), so it will get no token; use /v2.0`;
}
