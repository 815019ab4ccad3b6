// OpenStack on Linux is checked, never deployed: the controller (Keystone, nova-api, ...) is kolla-ansible's,
// run by contrail-ansible-deployer's install_openstack playbook, and so is nova_compute on a compute
// (Juniper/contrail-kolla-ansible ansible/roles/nova: tasks/config.yml renders templates/nova.conf.j2 and
// nova-compute.json.j2, the container's config.json). This phase asks Keystone for a token from the node, as
// the node's services will, and on a compute that nova-api answers (docs/roles.md, Linux).

import type { LinuxRoleInput } from '../input.js';
import { keystoneToken } from '../keystone.js';
import type { Phase } from '../phase.js';
import { novaApiAnswers } from './nova-api.js';

/** The openstack phase, or none when nothing on the node needs Keystone. */
export function linuxOpenstack(input: LinuxRoleInput): Phase | undefined {
  if (!input.keystone) return undefined;
  return {
    name: 'openstack',
    resources: [keystoneToken('linux', input.keystone), ...(input.novaApi ? [novaApiAnswers(input.novaApi)] : [])],
  };
}
