// OpenStack on Linux: Keystone on the node that hosts it, Kolla's nova_compute on computes, a token from computes.

import { errors } from '../../errors.js';
import type { LinuxRoleInput } from '../input.js';
import { keystoneToken } from '../keystone.js';
import type { Phase } from '../phase.js';
import type { Resource } from '../resource.js';
import { type ComposeService, composeFile, composeFileResource, composeUpResource } from './compose.js';
import { envFile, envFileResource } from './env-file.js';

export const OPENSTACK_COMPOSE = '/etc/kolla/docker-compose.yaml';
export const KEYSTONE_ENV = '/etc/kolla/keystone.env';

export function openstackServices(input: LinuxRoleInput): Record<string, ComposeService> {
  const kolla = (name: string) => `kolla/centos-binary-${name}:${input.openstackRelease}`;
  return {
    ...(input.hostsKeystone ? { keystone: { image: kolla('keystone'), env_file: [KEYSTONE_ENV] } } : {}),
    ...(input.openstackCompute ? { nova_compute: { image: kolla('nova-compute'), privileged: true } } : {}),
  };
}

/** The openstack phase, or none when nothing on the node needs OpenStack. */
export function linuxOpenstack(input: LinuxRoleInput): Phase | undefined {
  const services = openstackServices(input);
  const resources: Resource[] = [];
  if (input.hostsKeystone) {
    if (input.keystoneAdminPassword === undefined)
      throw errors.GC_SET_FAILED(`${input.node} hosts Keystone but no admin password was given (KEYSTONE_AUTH_ADMIN_PASSWORD)`);
    resources.push(envFileResource('keystone', KEYSTONE_ENV, envFile({ KEYSTONE_ADMIN_PASSWORD: input.keystoneAdminPassword })));
  }
  if (Object.keys(services).length > 0) {
    resources.push(
      composeFileResource('openstack', OPENSTACK_COMPOSE, composeFile(services)),
      composeUpResource('openstack', OPENSTACK_COMPOSE, services),
    );
  }
  if (input.keystone) resources.push(keystoneToken('linux', input.keystone));
  return resources.length > 0 ? { name: 'openstack', resources } : undefined;
}
