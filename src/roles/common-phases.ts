// What both OSes plan alike: why the overlay and openstack phases are planned, and the Keystone gate.

import type { KeystoneInput, OverlayInput } from './input.js';
import type { Gate } from './plan.js';

/** The label that gives a node its per-host subnet (nodes/<name>.yaml `labels.per_host_subnet`). */
const SUBNET_LABEL = 'per_host_subnet';

export function overlayReason(overlay: OverlayInput, how: string): string {
  return `${SUBNET_LABEL} ${overlay.subnet}: ${how}`;
}

/** Why a node gets its openstack phase: a check of the external controller's Keystone, never a deployment. */
export function openstackReason({ keystone }: { keystone?: KeystoneInput }): string {
  if (!keystone) return '';
  return `needs Keystone at ${keystone.address} (${keystone.source}; deployed by kolla-ansible, not groundcrew): it must answer and the credentials get a token`;
}

/** A compute's openstack phase waits for the inventory node that hosts Keystone to be verified. */
export function keystoneGates(keystone: KeystoneInput | undefined): Gate[] {
  const host = keystone?.hostNode;
  if (!host) return [];
  return [{ kind: 'keystone', node: host, reason: `Keystone runs on ${host} (${keystone.address}); it must be verified first` }];
}
