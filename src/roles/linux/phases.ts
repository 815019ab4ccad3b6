// The Linux phases of DESIGN section 5: prereqs, openstack, vrouter, verified (controllers skip vrouter).

import { bashQuote } from '../../dataplane/quote.js';
import { RoleError } from '../errors.js';
import type { LinuxRoleInput } from '../input.js';
import { keystoneToken } from '../keystone.js';
import { change, type Phase } from '../phase.js';
import { CHANGED, compare, type Resource } from '../resource.js';
import { type ComposeService, composeFile, composeFileResource, composeUpResource } from './compose.js';
import { fact, fileContent, fileFact } from './facts.js';
import { linuxOverlay, linuxOverlayAbsent } from './overlay.js';
import { parseIpLinks } from './parsers.js';

export const ENV_FILE = '/etc/contrail/common_vrouter.env';
export const VROUTER_COMPOSE = '/etc/contrail/vrouter/docker-compose.yaml';
export const OPENSTACK_COMPOSE = '/etc/kolla/docker-compose.yaml';
export const KEYSTONE_ENV = '/etc/kolla/keystone.env';
const SYSCTL_FILE = '/etc/sysctl.d/60-contrail.conf';
const SYSCTLS: Record<string, string> = { 'net.ipv4.ip_forward': '1' };
const DIRS = ['/etc/contrail', '/etc/contrail/vrouter', '/var/log/contrail', '/var/lib/contrail'];

/** Present, or the phase cannot go on: groundcrew does not install Docker on Linux nodes. */
function tool(name: string, sh: string): Resource {
  const id = `tool.${name}`;
  return {
    name: `tool/${name}`,
    facts: [{ id, sh }],
    test: (facts) => compare({ Present: [fact(facts, id).status === 0, true] }),
    async set() {
      throw new RoleError(
        'GC_SET_FAILED',
        `${name} is not installed on the node: install it (groundcrew expects Docker with the compose plugin on Linux nodes)`,
      );
    },
  };
}

function sysctls(): Resource {
  const content = `${Object.entries(SYSCTLS)
    .map(([k, v]) => `${k} = ${v}`)
    .join('\n')}\n`;
  return {
    name: 'sysctls',
    facts: [
      fileFact('sysctl.file', SYSCTL_FILE, bashQuote),
      ...Object.keys(SYSCTLS).map((k) => ({ id: `sysctl.${k}`, sh: `sysctl -n ${bashQuote(k)}` })),
    ],
    test: (facts) =>
      compare({
        [SYSCTL_FILE]: [fileContent(facts, 'sysctl.file'), content],
        ...Object.fromEntries(Object.entries(SYSCTLS).map(([k, v]) => [k, [fact(facts, `sysctl.${k}`).stdout.trim(), v]])),
      }),
    async set({ exec, signal }) {
      const apply = Object.entries(SYSCTLS)
        .map(([k, v]) => `sysctl -q -w ${bashQuote(`${k}=${v}`)}`)
        .join(' && ');
      await change(exec, `mkdir -p /etc/sysctl.d && cat > ${SYSCTL_FILE} && ${apply}`, 'set sysctls', {
        stdin: content,
        ...(signal ? { signal } : {}),
      });
      return CHANGED;
    },
  };
}

function directories(): Resource {
  return {
    name: 'directories',
    facts: DIRS.map((d, i) => ({ id: `dir.${i}`, sh: `test -d ${bashQuote(d)}` })),
    test: (facts) => compare(Object.fromEntries(DIRS.map((d, i) => [d, [fact(facts, `dir.${i}`).status === 0, true]]))),
    async set({ exec, signal }) {
      await change(exec, `mkdir -p ${DIRS.map(bashQuote).join(' ')}`, 'create directories', { ...(signal ? { signal } : {}) });
      return CHANGED;
    },
  };
}

export function envFile(environment: Record<string, string>): string {
  return `${Object.keys(environment)
    .sort()
    .map((k) => `${k}=${environment[k]}`)
    .join('\n')}\n`;
}

/** An env file holding credentials: written through stdin, kept 0600, compared without printing it. */
function envFileResource(name: string, path: string, content: string): Resource {
  const id = `env.${name}`;
  return {
    name: `env/${name}`,
    facts: [fileFact(id, path, bashQuote), { id: `${id}.mode`, sh: `stat -c %a ${bashQuote(path)}` }],
    test: (facts) =>
      compare({ Content: [fileContent(facts, id) === content, true], Mode: [fact(facts, `${id}.mode`).stdout.trim(), '600'] }),
    async set({ exec, signal }) {
      const dir = path.slice(0, path.lastIndexOf('/'));
      await change(exec, `mkdir -p ${bashQuote(dir)} && install -m 0600 /dev/stdin ${bashQuote(path)}`, `write ${path}`, {
        stdin: content,
        ...(signal ? { signal } : {}),
      });
      return CHANGED;
    },
  };
}

export function vrouterServices(input: LinuxRoleInput): Record<string, ComposeService> {
  const image = (name: string) => `${input.registry}/contrail-${name}:${input.contrailVersion}`;
  return {
    'vrouter-kernel-init': { image: image('vrouter-kernel-init'), env_file: [ENV_FILE], privileged: true },
    'vrouter-agent': { image: image('vrouter-agent'), env_file: [ENV_FILE], privileged: true },
    nodemgr: { image: image('nodemgr'), env_file: [ENV_FILE] },
  };
}

export function openstackServices(input: LinuxRoleInput): Record<string, ComposeService> {
  const kolla = (name: string) => `kolla/centos-binary-${name}:${input.openstackRelease}`;
  return {
    ...(input.hostsKeystone ? { keystone: { image: kolla('keystone'), env_file: [KEYSTONE_ENV] } } : {}),
    ...(input.openstackCompute ? { nova_compute: { image: kolla('nova-compute'), privileged: true } } : {}),
  };
}

function interfacesUp(): Resource {
  return {
    name: 'verify/interfaces',
    facts: [{ id: 'links', sh: 'ip -j link show' }],
    test(facts) {
      const links = parseIpLinks(fact(facts, 'links').stdout);
      const up = (name: string) => links.some((l) => l.name === name && l.up);
      return compare({ vhost0: [up('vhost0'), true], pkt0: [up('pkt0'), true] });
    },
    async set() {
      throw new RoleError('GC_STILL_DIFFERENT', 'vhost0 and pkt0 are not both up: the vRouter agent is not working');
    },
  };
}

export function linuxPhases(input: LinuxRoleInput): Phase[] {
  const phases: Phase[] = [
    {
      name: 'prereqs',
      resources: [
        // A node without a subnet holds no overlay (its label may have been removed in this commit). First:
        // it needs nothing else, and a set before it would make the phase read its facts once more.
        ...(input.overlay ? [] : [linuxOverlayAbsent()]),
        tool('docker', "docker version --format '{{.Server.Version}}'"),
        tool('compose', 'docker compose version --short'),
        sysctls(),
        directories(),
      ],
    },
    ...(input.overlay ? [linuxOverlay(input.overlay)] : []),
  ];
  const openstack = openstackServices(input);
  const openstackResources: Resource[] = [];
  if (input.hostsKeystone) {
    if (input.keystoneAdminPassword === undefined)
      throw new RoleError('GC_SET_FAILED', `${input.node} hosts Keystone but no admin password was given (KEYSTONE_AUTH_ADMIN_PASSWORD)`);
    openstackResources.push(envFileResource('keystone', KEYSTONE_ENV, envFile({ KEYSTONE_ADMIN_PASSWORD: input.keystoneAdminPassword })));
  }
  if (Object.keys(openstack).length > 0) {
    openstackResources.push(
      composeFileResource('openstack', OPENSTACK_COMPOSE, composeFile(openstack)),
      composeUpResource('openstack', OPENSTACK_COMPOSE, openstack),
    );
  }
  if (input.keystone) openstackResources.push(keystoneToken('linux', input.keystone));
  if (openstackResources.length > 0) phases.push({ name: 'openstack', resources: openstackResources });
  const verify: Resource[] = [];
  if (input.vrouter) {
    const services = vrouterServices(input);
    phases.push({
      name: 'vrouter',
      resources: [
        envFileResource('common_vrouter', ENV_FILE, envFile(input.environment)),
        composeFileResource('vrouter', VROUTER_COMPOSE, composeFile(services)),
        composeUpResource('vrouter', VROUTER_COMPOSE, services, true),
      ],
    });
    verify.push({
      ...composeUpResource('vrouter', VROUTER_COMPOSE, services),
      name: 'verify/vrouter-containers',
      set: async () => Promise.reject(new RoleError('GC_STILL_DIFFERENT', 'vRouter containers are not all running at the desired images')),
    });
    verify.push(interfacesUp());
  }
  if (Object.keys(openstack).length > 0) {
    verify.push({
      ...composeUpResource('openstack', OPENSTACK_COMPOSE, openstack),
      name: 'verify/openstack-containers',
      set: async () => Promise.reject(new RoleError('GC_STILL_DIFFERENT', 'OpenStack containers are not all running')),
    });
  }
  verify.push({
    ...directories(),
    name: 'verify/directories',
    set: async () => Promise.reject(new RoleError('GC_STILL_DIFFERENT', 'Contrail log and data directories are missing')),
  });
  phases.push({ name: 'verified', resources: verify });
  return phases;
}
