// Verified on Linux: the vRouter's containers are as c-a-d leaves them (init containers done, agent and
// nodemgr running at their images), vhost0 and pkt0 are up, the Contrail directories exist.

import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { LinuxRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { linkFact, linkUp } from './facts.js';
import { directories } from './prereqs.js';
import { vrouterUp } from './vrouter.js';

/** A check of the verify phase: a difference is an error, repaired by the phase that owns it at the next pass. */
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
    const up = check(
      vrouterUp(input, true),
      'verify/vrouter-containers',
      'vRouter containers are not as deployed (init done, agent and nodemgr running)',
    );
    resources.push(up, interfacesUp());
  }
  resources.push(check(directories(), 'verify/directories', 'Contrail log and data directories are missing'));
  return { name: 'verify', resources };
}
