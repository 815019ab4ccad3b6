// The CNM plugin's Keystone client as it starts with [AUTH] AuthMethod=keystone: contrail-go-api's
// KeepaliveKeystoneClient (keystone.go, Authenticate), which the plugin builds from [KEYSTONE]
// (contrail-windows-docker-driver adapters/secondary/controller_rest/auth/keystone.go). It posts a v2.0 body
// ({"auth": {"tenantName", "passwordCredentials": {"username", "password"}}}) to Os_auth_url + "/tokens" and
// takes only 200 as a token.

import type { SimNetwork } from '../network.js';

/** One key of an INI section (`key = value`, spaces allowed around `=`), as the plugin's config reader takes it. */
function iniValue(config: string, section: string, key: string): string | undefined {
  let inSection = false;
  for (const raw of config.split(/\r?\n/)) {
    const line = raw.trim();
    const header = /^\[(.+)\]$/.exec(line);
    if (header) inSection = header[1]?.trim().toUpperCase() === section;
    else if (inSection) {
      const kv = /^([^=]+?)\s*=\s*(.*)$/.exec(line);
      if (kv && kv[1]?.toLowerCase() === key.toLowerCase()) return kv[2];
    }
  }
  return undefined;
}

/** Why the plugin cannot get a token (its start fails), or undefined when Keystone gave one. */
export function cnmKeystoneProblem(config: string, network: SimNetwork | undefined): string | undefined {
  const authUrl = iniValue(config, 'KEYSTONE', 'Os_auth_url') ?? '';
  // keystone.go NewKeystoneAuth: an empty URL is refused before any request.
  if (authUrl === '') return '[KEYSTONE] Os_auth_url is empty: Empty Keystone auth URL.';
  if (!/^http:\/\//i.test(authUrl)) return `groundcrew sim: Os_auth_url ${authUrl} (TLS) is outside the simulated subset.`;
  const url = `${authUrl}${authUrl.endsWith('/') ? '' : '/'}tokens`;
  const body = JSON.stringify({
    auth: {
      tenantName: iniValue(config, 'KEYSTONE', 'Os_tenant_name') ?? '',
      passwordCredentials: {
        username: iniValue(config, 'KEYSTONE', 'Os_username') ?? '',
        password: iniValue(config, 'KEYSTONE', 'Os_password') ?? '',
      },
    },
  });
  const outcome = network?.request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  if (!outcome || 'error' in outcome) return `Post ${url}: dial tcp: connection ${outcome?.error ?? 'unreachable'}.`;
  if (outcome.status !== 200) return `Keystone at ${url} answered ${outcome.status}: the plugin has no token.`;
  return undefined;
}
