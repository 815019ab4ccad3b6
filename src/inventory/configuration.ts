// Configuration maps read as the operator wrote them, credentials wrapped as secrets.

import type { ConfigValue } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import { closest, didYouMean } from './did-you-mean.js';
import { isSecretKey, looksLikePrivateKey, Secret } from './secret.js';
import { versionProblem } from './versions.js';
import type { Path, YamlSource } from './yaml-source.js';

/** The keys groundcrew itself reads; a near miss of one of these is almost certainly a typo. */
export const KNOWN_CONFIG_KEYS = [
  'CONTRAIL_VERSION',
  'CONTAINER_REGISTRY',
  'CLOUD_ORCHESTRATOR',
  'CONTROLLER_NODES',
  'CONTROL_NODES',
  'AUTH_MODE',
  'KEYSTONE_AUTH_HOST',
  'KEYSTONE_AUTH_ADMIN_USER',
  'KEYSTONE_AUTH_ADMIN_PASSWORD',
  'KEYSTONE_AUTH_ADMIN_TENANT',
  'KEYSTONE_AUTH_URL_VERSION',
  'KEYSTONE_AUTH_URL_TOKENS',
  'KEYSTONE_AUTH_PUBLIC_PORT',
  'KEYSTONE_AUTH_PROTO',
  'ANALYTICS_NODES',
  'DNS_NODES',
  'REGISTRY_PRIVATE_INSECURE',
  'PHYSICAL_INTERFACE',
  'VROUTER_GATEWAY',
  'WINDOWS_PHYSICAL_INTERFACE',
  'WINDOWS_ENABLE_TEST_SIGNING',
  'WINDOWS_USE_SIGNED_VROUTER',
  'WINDOWS_DEBUG_DLLS_PATH',
] as const;

/** Reads the map at `path` (already shape-checked) into configuration values. */
export function readConfigMap(src: YamlSource, path: Path, map: Record<string, unknown> | null | undefined): Record<string, ConfigValue> {
  const out: Record<string, ConfigValue> = {};
  for (const [key, value] of Object.entries(map ?? {})) {
    if (value === null || value === undefined) {
      out[key] = null;
      continue;
    }
    const text = src.scalarText([...path, key]) ?? String(value);
    out[key] = isSecretKey(key) || looksLikePrivateKey(text) ? new Secret(text) : text;
  }
  return out;
}

/** The plain text of a configuration value, or undefined when absent or empty. */
export function configText(config: Readonly<Record<string, ConfigValue>>, key: string): string | undefined {
  const value = config[key];
  if (value === null || value === undefined) return undefined;
  return typeof value === 'string' ? value : value.reveal();
}

/** Wraps every value under a secret-looking key, or anywhere below `kolla_passwords`, as a Secret. */
export function wrapSecrets(value: unknown, underSecretKey = false): unknown {
  if (Array.isArray(value)) return value.map((v) => wrapSecrets(v, underSecretKey));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, wrapSecrets(v, underSecretKey || k === 'kolla_passwords' || isSecretKey(k))]),
    );
  }
  if (value !== null && value !== undefined && (underSecretKey || (typeof value === 'string' && looksLikePrivateKey(value))))
    return new Secret(String(value));
  return value;
}

const ENUMERATED: Record<string, readonly string[]> = {
  AUTH_MODE: ['keystone', 'noauth', 'rbac'],
  CLOUD_ORCHESTRATOR: ['openstack', 'kubernetes', 'vcenter', 'mesos', 'none'],
  KEYSTONE_AUTH_PROTO: ['http', 'https'],
  REGISTRY_PRIVATE_INSECURE: ['true', 'false', 'True', 'False', 'yes', 'no'],
};

/**
 * Keys whose values land in a Windows config file or a URL (contrail-cnm-plugin.conf, the agent's and nodemgr's
 * config): their form is checked, so no value can carry a line break or another key into those files.
 */
const ADDRESSES = /^[A-Za-z0-9.:-]+([ ,]+[A-Za-z0-9.:-]+)*$/;

const FORMS: Record<string, { pattern: RegExp; expected: string }> = {
  KEYSTONE_AUTH_URL_VERSION: { pattern: /^\/[A-Za-z0-9._-]+$/, expected: 'a path like /v2.0 or /v3' },
  KEYSTONE_AUTH_URL_TOKENS: { pattern: /^(\/[A-Za-z0-9._-]+)+$/, expected: 'a path like /v2.0/tokens or /v3/auth/tokens' },
  KEYSTONE_AUTH_PUBLIC_PORT: {
    pattern: /^([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$/,
    expected: 'a port number',
  },
  ANALYTICS_NODES: { pattern: ADDRESSES, expected: 'addresses separated by commas' },
  DNS_NODES: { pattern: ADDRESSES, expected: 'addresses separated by commas' },
  CONTROL_NODES: { pattern: ADDRESSES, expected: 'addresses separated by commas' },
  CONTROLLER_NODES: { pattern: ADDRESSES, expected: 'addresses separated by commas' },
  KEYSTONE_AUTH_HOST: { pattern: /^[A-Za-z0-9.:-]+$/, expected: 'a host name or address' },
  VROUTER_GATEWAY: { pattern: /^[0-9A-Fa-f.:]+$/, expected: 'an IP address' },
  // A Linux interface name: at most 15 bytes (IFNAMSIZ less the NUL), no "/", ":" or white space (dev_valid_name).
  PHYSICAL_INTERFACE: { pattern: /^[A-Za-z0-9_.-]{1,15}$/, expected: 'a Linux interface name (up to 15 letters, digits, ".", "_", "-")' },
  // A Windows adapter name (its InterfaceAlias: "Ethernet 2", "vEthernet (HNSTransparent)"); not quotes, "=", "$".
  WINDOWS_PHYSICAL_INTERFACE: {
    pattern: /^[A-Za-z0-9 _.()#,-]{1,256}$/,
    expected: 'a Windows adapter name (letters, digits, spaces, "._()#,-")',
  },
  // registry[:port][/path], as docker names one (the image's repository prefix).
  CONTAINER_REGISTRY: { pattern: /^[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[A-Za-z0-9._-]+)*$/, expected: 'a registry like host[:port][/path]' },
};

/** What a value of `key` must be, when `text` is not that (its form); undefined when it is. For the repo's maps and the secrets file. */
export function configFormExpected(key: string, text: string): string | undefined {
  const form = FORMS[key];
  return form && !form.pattern.test(text) ? form.expected : undefined;
}

/**
 * Checks one configuration map wherever it appears: values of the keys groundcrew acts on, and near
 * misses of those keys (a warning: the deployer accepts any key, but `WINDOWS_ENABLE_TEST_SIGNIN` is a typo).
 */
export function checkConfigMap(src: YamlSource, path: Path, config: Record<string, ConfigValue>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const known: readonly string[] = KNOWN_CONFIG_KEYS;
  for (const key of Object.keys(config)) {
    const keyPath = [...path, key];
    if (!known.includes(key)) {
      const hint = closest(key, known);
      if (hint) out.push(src.diagnostic(keyPath, 'warning', `${key} is not a key groundcrew reads (did you mean "${hint}"?)`, 'key'));
      continue;
    }
    const text = configText(config, key);
    const allowed = ENUMERATED[key];
    if (allowed && text !== undefined && !allowed.includes(text)) {
      out.push(src.diagnostic(keyPath, 'error', `${key}: "${text}" is not one of ${allowed.join(', ')}${didYouMean(text, allowed)}`));
    }
    const expected = text === undefined ? undefined : configFormExpected(key, text);
    if (expected) out.push(src.diagnostic(keyPath, 'error', `${key}: ${JSON.stringify(text)} is not ${expected}`));
    if (key === 'CONTRAIL_VERSION' && text !== undefined) {
      const problem = versionProblem('contrail', text);
      if (problem) out.push(src.diagnostic(keyPath, 'error', `CONTRAIL_VERSION: ${problem}`));
    }
  }
  return out;
}
