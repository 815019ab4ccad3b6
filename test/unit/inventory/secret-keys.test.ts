// The redaction rules against the keys contrail-ansible-deployer's own inventories use: the example
// instances.yaml files (test/fixtures/cad-examples, copied unmodified from the deployer), the keys its
// README and kolla_passwords document, and what reaches the logger and the JSON the daemon serves.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { rootLogger } from '../../../src/cli/logger.js';
import { isSecretKey, redactSecrets } from '../../../src/inventory/secret.js';
import { logSink } from '../../support/log-sink.js';

const EXAMPLES = join(import.meta.dirname, '..', '..', 'fixtures', 'cad-examples');

/** Every map key in a YAML document, at any depth. */
function keysOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.add(k);
      keysOf(v, out);
    }
  return out;
}

// Credentials in the example files.
const EXAMPLE_SECRETS = ['KEYSTONE_AUTH_ADMIN_PASSWORD', 'ansible_password', 'keystone_admin_password', 'ssh_pwd', 'ssh_private_key'];

// Credential keys the deployer documents elsewhere (README, playbooks' inventories, kolla's passwords.yml).
const DOCUMENTED_SECRETS = [
  'ansible_become_pass',
  'ansible_ssh_pass',
  'ansible_become_password',
  'CONTAINER_REGISTRY_PASSWORD',
  'RABBITMQ_PASSWORD',
  'CONFIGDB_CASSANDRA_PASSWORD',
  'REDIS_SERVER_PASSWORD',
  'KEYSTONE_AUTH_ADMIN_PASS',
  'METADATA_PROXY_SECRET',
  'metadata_secret',
  'horizon_secret_key',
  'memcache_secret_key',
  'telemetry_secret_key',
  'rbd_secret_uuid',
  'database_password',
  'rabbitmq_password',
  'keepalived_password',
  'docker_registry_password',
  'heat_domain_admin_password',
  'etcd_cluster_token',
  'auth_token',
  'designate_rndc_key',
  'barbican_crypto_key',
  'nova_ssh_key',
  'kolla_ssh_key',
  'private_key',
  'PRIVATE_KEY_DATA',
  'ec2_access_key',
  'ec2_secret_key',
  'VROUTER_DECRYPT_KEY',
  'InstancePassword',
  'SSHPassword',
  'password',
];

// Keys in the same files that are not credentials and must stay readable.
const NOT_SECRETS = [
  'KEYSTONE_AUTH_HOST',
  'KEYSTONE_AUTH_ADMIN_USER',
  'KEYSTONE_AUTH_URL_VERSION',
  'AUTH_MODE',
  'CONTRAIL_VERSION',
  'CONTAINER_REGISTRY',
  'ssh_user',
  'ansible_user',
  'ssh_public_key',
  'public_key',
  'ip',
  'roles',
  'provider',
  'domainsuffix',
  'ntpserver',
  'WINDOWS_PHYSICAL_INTERFACE',
  'SERVER_CA_KEYFILE',
];

describe("the redaction rules and the deployer's keys", () => {
  it('cover every credential key the example inventories use, and no other key in them', () => {
    const files = readdirSync(EXAMPLES).filter((f) => f.endsWith('.yaml'));
    expect(files.length).toBeGreaterThanOrEqual(5);
    const all = new Set<string>();
    for (const f of files) keysOf(parse(readFileSync(join(EXAMPLES, f), 'utf8')), all);
    for (const key of EXAMPLE_SECRETS) expect(all.has(key), `${key} in the examples`).toBe(true);
    const secret = [...all].filter(isSecretKey).sort();
    // Everything under kolla_passwords is secret by position (configuration.ts); its keys are named here too.
    expect(secret).toEqual([...EXAMPLE_SECRETS].sort());
  });

  it.each(DOCUMENTED_SECRETS)('%s is a credential', (key) => {
    expect(isSecretKey(key)).toBe(true);
  });

  it.each(NOT_SECRETS)('%s is not', (key) => {
    expect(isSecretKey(key)).toBe(false);
  });

  it('redacts those keys at any depth, and inline private keys under any key, in the logger and in JSON', () => {
    const pem = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
    const record = {
      node: 'win-compute-1',
      provider_config: { bms: { ssh_pwd: 'pw-ssh', ansible_become_pass: 'pw-become', ssh_user: 'root' } },
      contrail_configuration: { KEYSTONE_AUTH_ADMIN_PASSWORD: 'pw-keystone', KEYSTONE_AUTH_HOST: '192.0.2.9' },
      kolla_config: { kolla_passwords: { keystone_admin_password: 'pw-kolla' } },
      list: [{ ansible_ssh_pass: 'pw-list' }],
      VROUTER_CERT_KEY: pem,
    };
    const json = JSON.stringify(redactSecrets(record));
    const sink = logSink();
    rootLogger('info', sink.stream).info(record, 'a record with credentials');
    for (const out of [json, sink.text()]) {
      for (const pw of ['pw-ssh', 'pw-become', 'pw-keystone', 'pw-kolla', 'pw-list', 'b3BlbnNzaC1rZXktdjEAAAAA'])
        expect(out).not.toContain(pw);
      expect(out).toContain('192.0.2.9');
      expect(out).toContain('"ssh_user":"root"');
      expect(out).toContain('[redacted]');
    }
  });
});
