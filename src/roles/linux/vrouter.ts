// The vRouter on Linux: common_vrouter.env and the compose project of kernel-init, agent and nodemgr.

import type { LinuxRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import { type ComposeService, composeFile, composeFileResource, composeUpResource } from './compose.js';
import { envFile, envFileResource } from './env-file.js';

export const ENV_FILE = '/etc/contrail/common_vrouter.env';
export const VROUTER_COMPOSE = '/etc/contrail/vrouter/docker-compose.yaml';

export function vrouterServices(input: LinuxRoleInput): Record<string, ComposeService> {
  const image = (name: string) => `${input.registry}/contrail-${name}:${input.contrailVersion}`;
  return {
    'vrouter-kernel-init': { image: image('vrouter-kernel-init'), env_file: [ENV_FILE], privileged: true },
    'vrouter-agent': { image: image('vrouter-agent'), env_file: [ENV_FILE], privileged: true },
    nodemgr: { image: image('nodemgr'), env_file: [ENV_FILE] },
  };
}

export function linuxVrouter(input: LinuxRoleInput): Phase {
  const services = vrouterServices(input);
  return {
    name: 'vrouter',
    resources: [
      envFileResource('common_vrouter', ENV_FILE, envFile(input.environment)),
      composeFileResource('vrouter', VROUTER_COMPOSE, composeFile(services)),
      composeUpResource('vrouter', VROUTER_COMPOSE, services, true),
    ],
  };
}
