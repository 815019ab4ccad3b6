// Every way an operator can get an inventory wrong, each with the exact place and wording they will see.

import { describe, expect, it } from 'vitest';
import { errorsOf, linuxNode, parse, yaml } from './helpers.js';

const WIN_CONFIG = ['contrail_configuration:', '  WINDOWS_PHYSICAL_INTERFACE: Ethernet1'];
/** instances.yaml lines of Windows node "w" at 10.0.0.5 with these roles. */
const windowsW = (...roles: string[]) => [
  '  w:',
  '    provider: bms_win',
  '    ip: 10.0.0.5',
  '    roles:',
  ...roles.map((r) => `      ${r}:`),
];

interface Case {
  name: string;
  instances: string;
  nodeFiles?: Record<string, string>;
  repoFile?: string;
  errors: string[];
}

/** A Linux node "a" whose file nodes/a.yaml (these lines) holds the one error. */
const inNodeFile = (name: string, lines: string[], error: string): Case => ({
  name,
  instances: yaml('instances:', ...linuxNode('a', '10.0.0.1')),
  nodeFiles: { 'nodes/a.yaml': yaml(...lines) },
  errors: [error],
});

const cases: Case[] = [
  {
    name: 'YAML syntax: an unclosed flow list',
    instances: yaml('instances:', '  a:', '    provider: bms', '    ip: [10.0.0.1', '    roles:'),
    errors: ['instances.yaml:5:5: YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ]'],
  },
  {
    name: 'YAML syntax: a tab used for indentation',
    instances: yaml('instances:', '  a:', '\tprovider: bms'),
    errors: ['instances.yaml:3:1: YAML syntax error: Tabs are not allowed as indentation'],
  },
  {
    name: 'an empty instances.yaml',
    instances: '',
    errors: ['instances.yaml:1:1: instances.yaml is empty: expected a map with provider_config and instances'],
  },
  {
    name: 'a list at the top of instances.yaml',
    instances: yaml('- bms1', '- bms2'),
    errors: ['instances.yaml:1:1: expected a map with provider_config and instances at the top of instances.yaml, found a list'],
  },
  {
    name: 'no instances key',
    instances: yaml('contrail_configuration:', '  CONTRAIL_VERSION: "5.0.2"'),
    errors: ['instances.yaml:1:1: the file: missing required key "instances" (a map)'],
  },
  {
    name: 'instances given as a list',
    instances: yaml('instances:', '  - provider: bms', '    ip: 10.0.0.1'),
    errors: ['instances.yaml:2:3: instances: expected a map, found a list'],
  },
  {
    name: 'an instance with nothing under it',
    instances: yaml('instances:', '  a:', ...linuxNode('b', '10.0.0.2')),
    errors: ['instances.yaml:2:3: instances.a: expected a map with provider, ip and roles, found nothing'],
  },
  {
    name: 'an unknown provider',
    instances: yaml('instances:', '  a:', '    provider: kvm', '    ip: 10.0.0.1'),
    errors: ['instances.yaml:3:15: provider "kvm" is not known: groundcrew manages bms (Linux) and bms_win (Windows) instances'],
  },
  {
    name: 'a misspelt provider',
    instances: yaml('instances:', '  a:', '    provider: bms_wn', '    ip: 10.0.0.1'),
    errors: [
      'instances.yaml:3:15: provider "bms_wn" is not known (did you mean "bms_win"?): groundcrew manages bms (Linux) and bms_win (Windows) instances',
    ],
  },
  {
    name: 'a misspelt role',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1', 'vroutr')),
    errors: ['instances.yaml:6:7: role "vroutr" is not a known role (did you mean "vrouter"?)'],
  },
  {
    name: 'an unknown role with nothing close',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1', 'database_server')),
    errors: ['instances.yaml:6:7: role "database_server" is not a known role'],
  },
  {
    name: 'the same node name twice',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), ...linuxNode('a', '10.0.0.2')),
    errors: ['instances.yaml:7:3: node "a" is defined twice (first at line 2); YAML would keep only the last'],
  },
  {
    name: 'the same address twice',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), ...linuxNode('b', '10.0.0.1')),
    errors: ['instances.yaml:9:9: instances.b.ip: 10.0.0.1 is already the address of node "a" (line 4)'],
  },
  {
    name: 'an address that is not an IP',
    instances: yaml('instances:', ...linuxNode('a', '300.1.2.3')),
    errors: ['instances.yaml:4:9: instances.a.ip: "300.1.2.3" is not an IP address'],
  },
  {
    name: 'no ip',
    instances: yaml('instances:', '  a:', '    provider: bms', '    roles:', '      vrouter:'),
    errors: ['instances.yaml:2:3: instances.a: missing required key "ip" (a text value)'],
  },
  {
    name: 'a Linux-only role on a Windows node',
    instances: yaml('instances:', ...windowsW('vrouter', 'config'), ...WIN_CONFIG),
    errors: ['instances.yaml:7:7: role "config" is Linux-only and cannot run on Windows node "w" (provider bms_win)'],
  },
  {
    name: 'the Windows docker driver on a Linux node',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), '      win_cnm_plugin:'),
    errors: ['instances.yaml:7:7: role "win_cnm_plugin" runs only on Windows (provider bms_win), and node "a" is Linux (provider bms)'],
  },
  {
    name: 'the docker driver without the vRouter',
    instances: yaml('instances:', ...windowsW('win_docker_driver'), ...WIN_CONFIG),
    errors: ['instances.yaml:5:5: node "w" has win_cnm_plugin without vrouter: the docker driver needs the vRouter on the same node'],
  },
  {
    name: 'a Windows vRouter with no data-plane interface',
    instances: yaml('instances:', ...windowsW('vrouter')),
    errors: [
      'instances.yaml:2:3: node "w" runs vrouter on Windows but WINDOWS_PHYSICAL_INTERFACE is not set (the alias of its data-plane adapter, e.g. Ethernet1)',
    ],
  },
  {
    name: 'a node file for a node that does not exist',
    instances: yaml('instances:', ...linuxNode('compute1', '10.0.0.1')),
    nodeFiles: { 'nodes/compute2.yaml': yaml('versions:', '  contrail: "5.0.2"') },
    errors: [
      'nodes/compute2.yaml:1:1: nodes/compute2.yaml is for node "compute2", but instances.yaml has no instance "compute2" (did you mean "compute1"?)',
    ],
  },
  inNodeFile(
    'a version that is not a version, in a node file',
    ['versions:', '  contrail: 5.0.2 beta'],
    'nodes/a.yaml:2:13: versions.contrail: "5.0.2 beta" is not a contrail version: expected a release like 5.0.2, an image tag like ocata-5.0.0-134, or latest',
  ),
  inNodeFile(
    'a Docker version that is not a version',
    ['versions:', '  docker: eighteen'],
    'nodes/a.yaml:2:11: versions.docker: "eighteen" is not a docker version: expected a Docker version like 18.09 or 19.03.5',
  ),
  {
    name: 'CONTRAIL_VERSION that is not a version',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), 'contrail_configuration:', '  CONTRAIL_VERSION: "5.0/2"'),
    errors: [
      'instances.yaml:8:21: CONTRAIL_VERSION: "5.0/2" is not a contrail version: expected a release like 5.0.2, an image tag like ocata-5.0.0-134, or latest',
    ],
  },
  {
    name: 'Keystone needed but nowhere to be found',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), 'contrail_configuration:', '  AUTH_MODE: keystone'),
    errors: [
      'instances.yaml:2:3: node "a" needs Keystone (AUTH_MODE is keystone) but there is no Keystone host: set KEYSTONE_AUTH_HOST in contrail_configuration or give a node the openstack role',
    ],
  },
  {
    name: 'roles given as a list instead of a map',
    instances: yaml('instances:', '  a:', '    provider: bms', '    ip: 10.0.0.1', '    roles:', '      - vrouter'),
    errors: ['instances.yaml:6:7: instances.a.roles: expected a map, found a list'],
  },
  {
    name: 'an empty roles map',
    instances: yaml('instances:', '  a:', '    provider: bms', '    ip: 10.0.0.1', '    roles: {}'),
    errors: ['instances.yaml:5:5: roles of "a" is an empty map: list at least one role, or remove the key to give the node every role'],
  },
  {
    name: 'a map where a configuration value goes',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), 'contrail_configuration:', '  CONTROLLER_NODES:', '    first: 10.0.0.9'),
    errors: [
      'instances.yaml:9:5: contrail_configuration.CONTROLLER_NODES: expected a single value (text, number or true/false), found a map',
    ],
  },
  {
    name: 'a misspelt key in an instance',
    instances: yaml('instances:', '  a:', '    provider: bms', '    ip: 10.0.0.1', '    rolse:', '      vrouter:'),
    errors: ['instances.yaml:5:5: unknown key "rolse" in instances.a (did you mean "roles"?)'],
  },
  {
    name: 'a misspelt top-level key',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), 'contrail_configuraton:', '  CONTRAIL_VERSION: "5.0.2"'),
    errors: ['instances.yaml:7:1: unknown top-level key "contrail_configuraton" (did you mean "contrail_configuration"?)'],
  },
  {
    name: 'a repeated configuration key',
    instances: yaml(
      'instances:',
      ...linuxNode('a', '10.0.0.1'),
      'contrail_configuration:',
      '  CONTRAIL_VERSION: "5.0.1"',
      '  CONTRAIL_VERSION: "5.0.2"',
    ),
    errors: [
      'instances.yaml:9:3: key "contrail_configuration.CONTRAIL_VERSION" is repeated (first at line 8); YAML would keep only the last',
    ],
  },
  {
    name: 'an AUTH_MODE that does not exist',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1'), 'contrail_configuration:', '  AUTH_MODE: keystoen'),
    errors: ['instances.yaml:8:14: AUTH_MODE: "keystoen" is not one of keystone, noauth, rbac (did you mean "keystone"?)'],
  },
  {
    name: 'a node name that cannot name a file or host',
    instances: yaml('instances:', ...linuxNode('"win compute"', '10.0.0.1')),
    errors: [
      'instances.yaml:2:3: node name "win compute" must start with a letter or digit and hold only letters, digits, "_", "-" and "." (at most 63): it names files and hosts',
    ],
  },
  inNodeFile(
    'a misspelt key in a node file',
    ['version:', '  contrail: "5.0.2"'],
    'nodes/a.yaml:1:1: unknown key "version" in the file (did you mean "versions"?)',
  ),
  inNodeFile(
    'a misspelt component in a node file',
    ['versions:', '  contrial: "5.0.2"'],
    'nodes/a.yaml:2:3: unknown key "contrial" in versions (did you mean "contrail"?)',
  ),
  inNodeFile(
    'a mode that does not exist',
    ['mode: aply'],
    'nodes/a.yaml:1:7: mode: "aply" is not one of apply, monitor, autocorrect (did you mean "apply"?)',
  ),
  inNodeFile('paused given as text', ['paused: "yes"'], 'nodes/a.yaml:1:9: paused: expected true or false, found the text "yes"'),
  inNodeFile(
    'a node file holding a list',
    ['- contrail: "5.0.2"'],
    'nodes/a.yaml:1:1: expected a map with versions, mode, paused, labels, overrides or published_ports at the top of nodes/a.yaml, found a list',
  ),
  {
    name: 'a rollout budget that is neither a count nor a percentage',
    instances: yaml('instances:', ...linuxNode('a', '10.0.0.1')),
    repoFile: yaml('rollout:', '  maxUnavailable: many'),
    errors: ['groundcrew.yaml:2:19: rollout.maxUnavailable: expected a count or a percentage like "25%"'],
  },
];

describe('invalid inventories are rejected whole, with file:line:col and a reason', () => {
  it('has at least 25 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
  });

  it.each(cases)('$name', ({ instances, nodeFiles, repoFile, errors }) => {
    const result = parse(instances, nodeFiles, repoFile);
    expect(result.ok).toBe(false);
    expect(errorsOf(result)).toEqual(errors);
  });

  it('lists every error of a file, not just the first', () => {
    const result = parse(
      yaml(
        'instances:',
        ...linuxNode('a', '10.0.0.1', 'vroutr'),
        '  b:',
        '    provider: bms_wn',
        '    ip: 10.0.0.2',
        ...linuxNode('c', '10.0.0.1', 'webui'),
      ),
    );
    expect(errorsOf(result)).toEqual([
      'instances.yaml:6:7: role "vroutr" is not a known role (did you mean "vrouter"?)',
      'instances.yaml:8:15: provider "bms_wn" is not known (did you mean "bms_win"?): groundcrew manages bms (Linux) and bms_win (Windows) instances',
      'instances.yaml:12:9: instances.c.ip: 10.0.0.1 is already the address of node "a" (line 4)',
    ]);
  });

  it('refuses a 10 MB file by its size, without parsing it', () => {
    const big = `instances:\n${'# padding line of a file that is far too big\n'.repeat(230_000)}`;
    expect(big.length).toBeGreaterThan(10_000_000);
    const result = parse(big);
    expect(errorsOf(result)).toEqual(['instances.yaml:1:1: instances.yaml is 9.9 MiB; the limit is 4.0 MiB']);
  });
});
