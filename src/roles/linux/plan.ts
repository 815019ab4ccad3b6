// The Linux phases of DESIGN section 5 for one node: prereqs, overlay, openstack, vrouter, verify.

import { keystoneGates, openstackReason, overlayReason } from '../common-phases.js';
import type { LinuxRoleInput } from '../input.js';
import type { Phase } from '../phase.js';
import type { NodePlan, PlannedPhase } from '../plan.js';
import { linuxOpenstack } from './openstack.js';
import { linuxOverlay } from './overlay.js';
import { linuxPrereqs } from './prereqs.js';
import { linuxVerify } from './verify.js';
import { linuxVrouter } from './vrouter.js';

// Linux takes a reboot only when a resource asks, at the end of that phase: nothing batches.
const planned = (phase: Phase, reason: string, gates: PlannedPhase['gates'] = []): PlannedPhase => ({
  ...phase,
  reason,
  batchesReboot: false,
  gates,
});

export function linuxPlan(input: LinuxRoleInput): NodePlan {
  const phases = [planned(linuxPrereqs(input), 'docker and compose (v2 or v1) present, sysctls, /etc/contrail directories')];
  if (input.overlay) {
    const how = 'bridge gc-overlay with the gateway, IP forwarding, a route to each other subnet via its node';
    phases.push(planned(linuxOverlay(input.overlay), overlayReason(input.overlay, how)));
  }
  const openstack = linuxOpenstack(input);
  if (openstack) {
    const nova = input.novaApi ? `; role openstack_compute: nova-api at ${input.novaApi.address} lists its versions (kolla-ansible's)` : '';
    phases.push(planned(openstack, `${openstackReason(input)}${nova}`, keystoneGates(input.keystone)));
  }
  if (input.vrouter) {
    const images = `${input.registry}/contrail-{node-init,nodemgr,vrouter-kernel[-build]-init,vrouter-agent}:${input.contrailVersion}`;
    phases.push(planned(linuxVrouter(input), `role vrouter: common_vrouter.env, c-a-d's compose project, ${images} up`));
  }
  const verified = input.vrouter
    ? 'vrouter init containers done, agent and nodemgr running, vhost0 and pkt0 up'
    : `${input.roles.filter((r) => r !== 'vrouter').join(', ')} present`;
  phases.push(planned(linuxVerify(input), verified));
  return { os: 'linux', phases };
}
