// Verified on Linux: the containers its phases started are running at their images, vhost0 and pkt0 are up.

import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { LinuxRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { composeUpResource } from './compose.js';
import { linkFact, linkUp } from './facts.js';
import { OPENSTACK_COMPOSE, openstackServices } from './openstack.js';
import { directories } from './prereqs.js';
import { VROUTER_COMPOSE, vrouterServices } from './vrouter.js';

/** A check of the verified phase: a difference is an error, repaired by the phase that owns it at the next pass. */
function check(resource: Resource, name: string, failure: string): Resource {
  return { ...resource, name, set: async () => Promise.reject(errors.GC_STILL_DIFFERENT(failure)) };
}

/** vhost0 and pkt0 up, read from sysfs by builtins (no `ip` started). */
function interfacesUp(): Resource {
  return {
    name: 'verify/interfaces',
    facts: [linkFact('link.vhost0', 'vhost0', bashQuote), linkFact('link.pkt0', 'pkt0', bashQuote)],
    test: (facts) => compare({ vhost0: [linkUp(facts, 'link.vhost0'), true], pkt0: [linkUp(facts, 'link.pkt0'), true] }),
    async set() {
      throw errors.GC_STILL_DIFFERENT('vhost0 and pkt0 are not both up: the vRouter agent is not working');
    },
  };
}

export function linuxVerify(input: LinuxRoleInput): Phase {
  const resources: Resource[] = [];
  if (input.vrouter) {
    const up = composeUpResource('vrouter', VROUTER_COMPOSE, vrouterServices(input));
    resources.push(check(up, 'verify/vrouter-containers', 'vRouter containers are not all running at the desired images'));
    resources.push(interfacesUp());
  }
  const openstack = openstackServices(input);
  if (Object.keys(openstack).length > 0) {
    const up = composeUpResource('openstack', OPENSTACK_COMPOSE, openstack);
    resources.push(check(up, 'verify/openstack-containers', 'OpenStack containers are not all running'));
  }
  resources.push(check(directories(), 'verify/directories', 'Contrail log and data directories are missing'));
  return { name: 'verified', resources };
}
