// The vRouter on Linux as contrail-ansible-deployer writes it: common_vrouter.env and the compose project of
// node-init, nodemgr, vrouter-kernel-init and vrouter-agent. Reference: Juniper/contrail-ansible-deployer,
// tag v5.1, playbooks/roles/contrail_vrouter/templates/contrail-vrouter.yaml.j2 (services, images, mounts,
// pid/privileged/network_mode, restart, logging), its tasks/main.yml (the kernel-init image by OS family,
// the file at /etc/contrail/vrouter/docker-compose.yaml) and playbooks/roles/contrail/defaults/main.yml
// (common_volumes, the compute log defaults). The kernel (not DPDK) vRouter only.

import type { LinuxRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import type { Facts } from '../resource.js';
import { type ComposeService, composeFileResource, composeUpResource, type DesiredServices, type Services } from './compose.js';
import { envFile, envFileResource } from './env-file.js';
import { OS_RELEASE_QUERY, type OsFamily, osFamily, unknownFamily } from './os-family.js';

export const ENV_FILE = '/etc/contrail/common_vrouter.env';
export const VROUTER_COMPOSE = '/etc/contrail/vrouter/docker-compose.yaml';
export const VROUTER_PROJECT = 'vrouter';
/** Init containers: node-init and kernel-init run their entrypoint and exit (Juniper/contrail-container-builder
 * v5.1 containers/node-init/entrypoint.sh, containers/vrouter/kernel-init/entrypoint.sh). */
export const VROUTER_RUNS_ONCE = ['node-init', 'vrouter-kernel-init'];

/** c-a-d's common_volumes: every Contrail container's host mounts. */
const COMMON_VOLUMES = [
  '/usr/bin:/host/usr/bin',
  '/etc/contrail/ssl:/etc/contrail/ssl',
  '/etc/sysctl.d:/etc/sysctl.d',
  '/etc/hosts:/etc/hosts',
  '/etc/timezone:/etc/timezone',
  '/etc/localtime:/etc/localtime',
  '/var/log/contrail:/var/log/contrail',
  '/var/crashes:/var/crashes',
];

function setting(env: Record<string, string>, keys: string[], fallback: string): string {
  for (const k of keys) if (env[k] !== undefined && env[k] !== '') return env[k] as string;
  return fallback;
}

/** c-a-d sets STDIN_OPEN and TTY to true unless the configuration says otherwise (set_contrail_variables.yml). */
function flag(env: Record<string, string>, key: string): boolean {
  return !/^(false|no|0)$/i.test(env[key] ?? 'true');
}

export function vrouterServices(input: LinuxRoleInput, family: OsFamily): Services {
  const env = input.environment;
  const image = (name: string) => `${input.registry}/${name}:${input.contrailVersion}`;
  const logging = {
    driver: setting(env, ['COMPUTE_LOG_DRIVER', 'DEFAULT_DOCKER_LOG_DRIVER'], 'json-file'),
    options: {
      'max-size': setting(env, ['COMPUTE_LOG_MAX_SIZE', 'DEFAULT_DOCKER_LOG_MAX_SIZE'], '50m'),
      'max-file': setting(env, ['COMPUTE_LOG_MAX_FILE', 'DEFAULT_DOCKER_LOG_MAX_FILE'], '10'),
    },
  };
  const stats = env.STATS_COLLECTOR_DESTINATION_PATH;
  // Jinja's dirname, as c-a-d's contrail/tasks/main.yml "update common_volumes" applies it.
  const at = stats?.lastIndexOf('/') ?? -1;
  const statsDir = stats && at >= 0 ? stats.slice(0, at) || '/' : undefined;
  const redhat = family === 'RedHat' ? ['/etc/sysconfig/network-scripts:/etc/sysconfig/network-scripts'] : [];
  const interactive = { stdin_open: flag(env, 'STDIN_OPEN'), tty: flag(env, 'TTY') };
  const fromNodeInit = { volumes_from: ['node-init'] };
  const services: Record<string, ComposeService> = {
    'node-init': {
      image: image('contrail-node-init'),
      env_file: ENV_FILE,
      // c-a-d writes the value in double quotes inside the list item, which compose keeps; groundcrew does not.
      environment: [`CONTRAIL_STATUS_IMAGE=${image('contrail-status')}`],
      privileged: true,
      pid: 'host',
      network_mode: 'host',
      volumes: [...COMMON_VOLUMES, ...(statsDir ? [`${statsDir}:${statsDir}`] : [])],
    },
    nodemgr: {
      image: image('contrail-nodemgr'),
      env_file: ENV_FILE,
      environment: ['NODE_TYPE=vrouter'],
      network_mode: 'host',
      volumes: ['/var/run/docker.sock:/var/run/docker.sock'],
      ...fromNodeInit,
      depends_on: ['node-init'],
      restart: 'on-failure',
      ...interactive,
      logging,
    },
    'vrouter-kernel-init': {
      // Debian hosts build the module with DKMS (needs /usr/src); RedHat ones copy a prebuilt vrouter.ko.
      image: image(family === 'Debian' ? 'contrail-vrouter-kernel-build-init' : 'contrail-vrouter-kernel-init'),
      network_mode: 'host',
      privileged: true,
      env_file: ENV_FILE,
      pid: 'host',
      volumes: ['/usr/src:/usr/src', '/lib/modules:/lib/modules', '/bin:/host/bin', ...redhat],
      ...fromNodeInit,
      depends_on: ['node-init'],
    },
    'vrouter-agent': {
      image: image('contrail-vrouter-agent'),
      network_mode: 'host',
      privileged: true,
      pid: 'host',
      env_file: ENV_FILE,
      volumes: [
        '/usr/src:/usr/src',
        '/lib/modules:/lib/modules',
        '/bin:/host/bin',
        '/var/lib/contrail:/var/lib/contrail',
        '/var/run:/var/run',
        ...redhat,
        '/dev/log:/dev/log',
      ],
      ...fromNodeInit,
      depends_on: ['vrouter-kernel-init', 'node-init'],
      logging,
      restart: 'always',
      ...interactive,
    },
  };
  return services;
}

/** The services for the family the phase read (its `host/os-family` resource says when there is none). */
export function desiredVrouter(input: LinuxRoleInput): DesiredServices {
  return (facts: Facts) => {
    const family = osFamily(facts);
    return family ? vrouterServices(input, family) : unknownFamily(facts);
  };
}

/** `checkOnly`: the verify phase's check, which never runs compose. */
export function vrouterUp(input: LinuxRoleInput, checkOnly = false) {
  return composeUpResource(VROUTER_PROJECT, VROUTER_COMPOSE, desiredVrouter(input), {
    ...(checkOnly ? { checkOnly } : {}),
    disruptive: true,
    runsOnce: VROUTER_RUNS_ONCE,
    facts: [OS_RELEASE_QUERY],
  });
}

export function linuxVrouter(input: LinuxRoleInput): Phase {
  return {
    name: 'vrouter',
    resources: [
      envFileResource('common_vrouter', ENV_FILE, envFile(ENV_FILE, input.environment)),
      composeFileResource(VROUTER_PROJECT, VROUTER_COMPOSE, desiredVrouter(input), [OS_RELEASE_QUERY]),
      vrouterUp(input),
    ],
  };
}
