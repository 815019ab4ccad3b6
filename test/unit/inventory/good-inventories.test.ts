// Real contrail-ansible-deployer inventories and the shapes they use read as the deployer reads them.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { configText } from '../../../src/inventory/configuration.js';
import type { DesiredState } from '../../../src/inventory/desired-state.js';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import { linuxNode, parse, warningsOf, yaml } from './helpers.js';

const CAD = join(import.meta.dirname, '..', '..', 'fixtures', 'cad-examples');

function stateOf(result: ReturnType<typeof parse>): DesiredState {
  if (!result.ok)
    throw new Error(`expected a valid inventory, got:\n${result.errors.map((e) => `${e.line}:${e.col} ${e.message}`).join('\n')}`);
  return result.state;
}

describe('contrail-ansible-deployer examples, unchanged', () => {
  const files = readdirSync(CAD).filter((f) => f.endsWith('.yaml'));

  it('finds all five examples', () => {
    expect(files.sort()).toEqual([
      'bms_example.yaml',
      'bms_win_example.yaml',
      'bms_win_full_example.yaml',
      'bms_win_no_openstack_example.yaml',
      'bms_with_qos_example.yaml',
    ]);
  });

  it.each(files)('%s is valid', async (file) => {
    const { result } = await loadInventory(join(CAD, file));
    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it('bms_example: no roles means every role, and an image tag is a version', async () => {
    const { result } = await loadInventory(join(CAD, 'bms_example.yaml'));
    const state = stateOf(result);
    expect(state.nodes.map((n) => n.name)).toEqual(['bms1', 'bms2', 'bms3']);
    const bms1 = state.nodes[0];
    expect(bms1?.rolesDefaulted).toBe(true);
    expect(bms1?.roles).toEqual(['config_database', 'config', 'control', 'analytics_database', 'analytics', 'webui', 'vrouter']);
    expect(bms1?.versions.contrail).toEqual({ version: 'ocata-5.0.0-134', source: 'CONTRAIL_VERSION' });
    // CONTAINER_REGISTRY sits in contrail_configuration here, not global_configuration.
    expect(bms1?.registry).toBe('michaelhenkel');
    // Empty credentials are allowed (supplied elsewhere): the deployer's default user.
    expect(bms1?.credentials).toEqual({ user: 'root' });
  });

  it('bms_win_example: a Windows-only inventory pointing at Keystone outside itself', async () => {
    const { result } = await loadInventory(join(CAD, 'bms_win_example.yaml'));
    const [win] = stateOf(result).nodes;
    expect(win?.os).toBe('windows');
    expect(win?.roles).toEqual(['vrouter', 'win_cnm_plugin']);
    expect(win?.keystone).toEqual({ address: '192.168.1.100', source: 'KEYSTONE_AUTH_HOST' });
    expect(win?.registry).toBe('opencontrailnightly');
    expect(win?.credentials.user).toBe('Administrator');
    expect(win?.credentials.password?.reveal()).toBe('Contrail123!');
    expect('WINDOWS_ENABLE_TEST_SIGNING' in (win?.configuration ?? {})).toBe(true);
  });

  it('bms_win_full_example: computes wait for the controller that hosts Keystone', async () => {
    const { result } = await loadInventory(join(CAD, 'bms_win_full_example.yaml'));
    const nodes = stateOf(result).nodes;
    const ctrl = nodes.find((n) => n.name === 'ctrl');
    expect(ctrl?.hostsKeystone).toBe(true);
    expect(ctrl?.keystone?.hostNode).toBeUndefined();
    expect(nodes.find((n) => n.name === 'win_compute2')?.keystone).toEqual({
      address: '192.168.1.100',
      hostNode: 'ctrl',
      source: 'KEYSTONE_AUTH_HOST',
    });
    expect(configText(ctrl?.configuration ?? {}, 'RABBITMQ_NODE_PORT')).toBe('5673');
  });

  it('bms_with_qos_example: role-level maps reach the node, and the stray top-level key is a warning with a hint', async () => {
    const { result } = await loadInventory(join(CAD, 'bms_with_qos_example.yaml'));
    const [bms1, bms2] = stateOf(result).nodes;
    expect(configText(bms1?.configuration ?? {}, 'QOS_QUEUE_ID')).toBe('2,6');
    expect(configText(bms1?.configuration ?? {}, 'QOS_DEF_HW_QUEUE')).toBe('True');
    expect(configText(bms2?.configuration ?? {}, 'PHYSICAL_INTERFACE')).toBe('enp2s0');
    expect(configText(bms1?.configuration ?? {}, 'PHYSICAL_INTERFACE')).toBe('eno1');
    expect(bms1?.hostname).toBe('bms1.local');
    expect(result.warnings.map((w) => `${w.line}:${w.col} ${w.message}`)).toEqual([
      '54:1 top-level key "KEYSTONE_AUTH_URL_VERSION" is ignored, as contrail-ansible-deployer ignores it; to set it, move it under contrail_configuration',
    ]);
  });
});

describe('configuration and versions', () => {
  const inventory = yaml(
    'provider_config:',
    '  bms:',
    '    ssh_user: deploy',
    '    ssh_pwd: s3cret-bms',
    '  bms_win:',
    '    ansible_user: Administrator',
    '    ansible_password: s3cret-win',
    'instances:',
    '  lin:',
    '    provider: bms',
    '    ip: 10.0.0.1',
    '    ssh_user: other',
    '    ssh_pwd: s3cret-own',
    '    contrail_configuration:',
    '      PHYSICAL_INTERFACE: eth1',
    '      CONTRAIL_VERSION: 5.10',
    '    roles:',
    '      vrouter:',
    '        PHYSICAL_INTERFACE: eth2',
    '  win:',
    '    provider: bms_win',
    '    ip: 10.0.0.2',
    '    roles:',
    '      vrouter:',
    '      win_docker_driver:',
    'contrail_configuration:',
    '  CONTRAIL_VERSION: "5.0.1"',
    '  PHYSICAL_INTERFACE: eth0',
    '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1',
    '  KEYSTONE_AUTH_ADMIN_PASSWORD: s3cret-keystone',
    'kolla_config:',
    '  kolla_passwords:',
    '    keystone_admin_password: s3cret-kolla',
  );

  it('merges contrail_configuration < instance < role map < node file overrides', () => {
    const state = stateOf(parse(inventory, { 'nodes/lin.yaml': yaml('overrides:', '  VROUTER_GATEWAY: 10.0.0.254') }));
    const lin = state.nodes[0];
    expect(configText(lin?.configuration ?? {}, 'PHYSICAL_INTERFACE')).toBe('eth2');
    expect(configText(lin?.configuration ?? {}, 'VROUTER_GATEWAY')).toBe('10.0.0.254');
    expect(configText(state.nodes[1]?.configuration ?? {}, 'PHYSICAL_INTERFACE')).toBe('eth0');
  });

  it('keeps versions as written: 5.10 unquoted stays 5.10, not 5.1', () => {
    const [lin, win] = stateOf(parse(inventory)).nodes;
    expect(lin?.versions.contrail.version).toBe('5.10');
    expect(win?.versions.contrail.version).toBe('5.0.1');
  });

  it('lets nodes/<name>.yaml versions win over CONTRAIL_VERSION, and groundcrew.yaml fill in the rest', () => {
    const state = stateOf(
      parse(
        inventory,
        { 'nodes/win.yaml': yaml('versions:', '  contrail: "5.0.2"', 'mode: monitor', 'paused: true') },
        yaml('defaults:', '  versions:', '    docker: 18.09', '    contrail: "4.1"', '  mode: apply'),
      ),
    );
    const [lin, win] = state.nodes;
    expect(win?.versions).toEqual({
      contrail: { version: '5.0.2', source: 'nodes/win.yaml' },
      docker: { version: '18.09', source: 'groundcrew.yaml' },
    });
    expect(win?.mode).toBe('monitor');
    expect(win?.paused).toBe(true);
    expect(lin?.mode).toBe('apply');
    expect(lin?.versions.contrail.source).toBe('CONTRAIL_VERSION');
  });

  it('reads per-instance credential overrides over provider_config', () => {
    const [lin, win] = stateOf(parse(inventory)).nodes;
    expect(lin?.credentials.user).toBe('other');
    expect(lin?.credentials.password?.reveal()).toBe('s3cret-own');
    expect(win?.credentials.user).toBe('Administrator');
    expect(win?.credentials.password?.reveal()).toBe('s3cret-win');
  });

  it('accepts win_docker_driver as the old name of win_cnm_plugin', () => {
    expect(stateOf(parse(inventory)).nodes[1]?.roles).toEqual(['vrouter', 'win_cnm_plugin']);
  });

  it('never prints a credential: JSON, inspect and string conversion all redact', () => {
    const state = stateOf(parse(inventory));
    const printed = [JSON.stringify(state), inspect(state, { depth: 20 }), `${state.nodes[0]?.credentials.password}`].join('\n');
    for (const secret of ['s3cret-bms', 's3cret-win', 's3cret-own', 's3cret-keystone', 's3cret-kolla']) {
      expect(printed).not.toContain(secret);
    }
    expect(printed).toContain('[redacted]');
  });

  it('warns about a near miss of a key groundcrew reads', () => {
    const result = parse(yaml('instances:', ...linuxNode('a', '10.0.0.1'), 'contrail_configuration:', '  WINDOWS_ENABLE_TEST_SIGNIN:'));
    expect(result.ok).toBe(true);
    expect(warningsOf(result)).toEqual([
      'instances.yaml:8:3: warning: WINDOWS_ENABLE_TEST_SIGNIN is not a key groundcrew reads (did you mean "WINDOWS_ENABLE_TEST_SIGNING"?)',
    ]);
  });
});
