// Which phases a node needs, in order, and why; and which other node it must wait for. Pure.

import { configText } from './configuration.js';
import type { NodeSpec } from './desired-state.js';
import { SUBNET_LABEL } from './overlay.js';

export const WINDOWS_PHASES = [
  'prereqs',
  'testSigning',
  'rebootWait',
  'overlay',
  'openstack',
  'vrouter',
  'driver',
  'kubelet',
  'verified',
] as const;
export const LINUX_PHASES = ['prereqs', 'overlay', 'openstack', 'vrouter', 'verified'] as const;
export type PhaseName = (typeof WINDOWS_PHASES)[number] | (typeof LINUX_PHASES)[number];

export interface PlannedPhase {
  phase: PhaseName;
  reason: string;
}

export interface Gate {
  kind: 'keystone';
  /** The node that must be verified first. */
  node: string;
  reason: string;
}

/** Test signing is wanted when WINDOWS_ENABLE_TEST_SIGNING is present (even empty) and the signed vRouter is not used. */
export function wantsTestSigning(node: NodeSpec): boolean {
  return node.os === 'windows' && 'WINDOWS_ENABLE_TEST_SIGNING' in node.configuration && !usesSignedVrouter(node);
}

export function usesSignedVrouter(node: NodeSpec): boolean {
  const value = configText(node.configuration, 'WINDOWS_USE_SIGNED_VROUTER');
  // Present means yes, as in the deployer, unless it plainly says no.
  return 'WINDOWS_USE_SIGNED_VROUTER' in node.configuration && !/^(false|no|0)$/i.test(value ?? '');
}

function openstackReason(node: NodeSpec): string | undefined {
  const parts: string[] = [];
  if (node.hostsKeystone) parts.push('hosts Keystone (role openstack): its container must run and answer');
  if (node.keystone)
    parts.push(`needs Keystone at ${node.keystone.address} (${node.keystone.source}): it must answer and the credentials get a token`);
  if (node.os === 'linux' && node.roles.includes('openstack_compute')) parts.push('role openstack_compute: Kolla nova_compute');
  return parts.length > 0 ? parts.join('; ') : undefined;
}

function overlayPhase(node: NodeSpec): PlannedPhase[] {
  const subnet = node.labels[SUBNET_LABEL];
  if (subnet === undefined) return [];
  const how =
    node.os === 'windows'
      ? 'transparent network and gateway, IP routing, a route to each other subnet via its node, portproxy for published ports'
      : 'bridge gc-overlay with the gateway, IP forwarding, a route to each other subnet via its node';
  return [{ phase: 'overlay', reason: `${SUBNET_LABEL} ${subnet}: ${how}` }];
}

export function phasesFor(node: NodeSpec): PlannedPhase[] {
  return node.os === 'windows' ? windowsPhases(node) : linuxPhases(node);
}

function windowsPhases(node: NodeSpec): PlannedPhase[] {
  const docker = node.versions.docker ? `Docker ${node.versions.docker.version}` : 'Docker (any version)';
  const phases: PlannedPhase[] = [
    {
      phase: 'prereqs',
      reason: `Windows features Containers and Hyper-V, ${docker}, daemon.json bridge none, WinNAT off, C:\\ProgramData\\Contrail`,
    },
  ];
  if (wantsTestSigning(node)) {
    phases.push({
      phase: 'testSigning',
      reason: 'WINDOWS_ENABLE_TEST_SIGNING is set and WINDOWS_USE_SIGNED_VROUTER is not: the unsigned vRouter driver needs test signing',
    });
  }
  phases.push({ phase: 'rebootWait', reason: 'taken only when a feature install or test signing asks for a reboot; both share one' });
  phases.push(...overlayPhase(node));
  const openstack = openstackReason(node);
  if (openstack) phases.push({ phase: 'openstack', reason: openstack });
  const contrail = node.versions.contrail.version;
  if (node.roles.includes('vrouter')) {
    phases.push({
      phase: 'vrouter',
      reason: `role vrouter: vRouter, utils and agent MSIs ${contrail} from ${node.registry}/contrail-windows-vrouter:${contrail}`,
    });
  }
  if (node.roles.includes('win_cnm_plugin')) {
    phases.push({
      phase: 'driver',
      reason: `role win_cnm_plugin: docker driver ${contrail}, then the agent (order Docker, driver, agent)`,
    });
  }
  const kubelet = node.roles.includes('k8s_node') ? node.versions.kubernetes?.version : undefined;
  if (kubelet) {
    phases.push({
      phase: 'kubelet',
      reason: `role k8s_node: containerd present, kubelet ${kubelet}, bootstrap kubeconfig and kubelet config, the kubelet service running`,
    });
  }
  const runsContrail = node.roles.includes('vrouter') || node.roles.includes('win_cnm_plugin');
  phases.push({
    phase: 'verified',
    reason: runsContrail ? 'services running, vRouter extension enabled, data-plane pipes present, versions as desired' : 'Docker running',
  });
  return phases;
}

function linuxPhases(node: NodeSpec): PlannedPhase[] {
  const phases: PlannedPhase[] = [{ phase: 'prereqs', reason: 'docker and compose present, sysctls, /etc/contrail directories' }];
  phases.push(...overlayPhase(node));
  const openstack = openstackReason(node);
  if (openstack) phases.push({ phase: 'openstack', reason: openstack });
  if (node.roles.includes('vrouter')) {
    const contrail = node.versions.contrail.version;
    phases.push({
      phase: 'vrouter',
      reason: `role vrouter: common_vrouter.env, compose project, ${node.registry}/contrail-vrouter-*:${contrail} images up`,
    });
  }
  const what = node.roles.includes('vrouter')
    ? 'vrouter containers running, vhost0 and pkt0 up'
    : `${node.roles.filter((r) => r !== 'vrouter').join(', ')} present`;
  phases.push({ phase: 'verified', reason: what });
  return phases;
}

/** Nodes that must be verified before this one may pass its openstack phase. */
export function gatesFor(node: NodeSpec): Gate[] {
  const host = node.keystone?.hostNode;
  if (!host) return [];
  return [{ kind: 'keystone', node: host, reason: `Keystone runs on ${host} (${node.keystone?.address}); it must be verified first` }];
}
