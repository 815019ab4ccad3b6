// The roles contrail-ansible-deployer knows, which OS each may run on, and what an instance without roles gets.

import type { Os } from '../os.js';

export const CONTROLLER_ROLES = [
  'config_database',
  'config',
  'control',
  'analytics_database',
  'analytics',
  'analytics_alarm',
  'analytics_snmp',
  'webui',
  'openstack',
  'openstack_control',
  'openstack_network',
  'openstack_storage',
  'openstack_monitoring',
  'k8s_master',
  'kubemanager',
] as const;

export const COMPUTE_ROLES = ['vrouter', 'openstack_compute', 'k8s_node', 'win_cnm_plugin', 'toragent'] as const;

export type Role = (typeof CONTROLLER_ROLES)[number] | (typeof COMPUTE_ROLES)[number];

export const KNOWN_ROLES: readonly Role[] = [...CONTROLLER_ROLES, ...COMPUTE_ROLES];

/** Older names still found in inventories, and the role each now means. */
export const ROLE_ALIASES: Readonly<Record<string, Role>> = { win_docker_driver: 'win_cnm_plugin' };

const WINDOWS_ROLES: ReadonlySet<Role> = new Set<Role>(['vrouter', 'win_cnm_plugin', 'k8s_node']);
const WINDOWS_ONLY_ROLES: ReadonlySet<Role> = new Set<Role>(['win_cnm_plugin']);

/** Roles whose node hosts Keystone (Kolla puts it with the OpenStack control plane). */
export const KEYSTONE_ROLES: ReadonlySet<Role> = new Set<Role>(['openstack', 'openstack_control']);

export function canonicalRole(name: string): Role | undefined {
  if (name in ROLE_ALIASES) return ROLE_ALIASES[name];
  return (KNOWN_ROLES as readonly string[]).includes(name) ? (name as Role) : undefined;
}

export function runsOn(role: Role, os: Os): boolean {
  return os === 'windows' ? WINDOWS_ROLES.has(role) : !WINDOWS_ONLY_ROLES.has(role);
}

/**
 * The deployer gives an instance with no `roles` key every role of its kind: the whole Contrail
 * control plane plus a vRouter, and the OpenStack or Kubernetes roles of the chosen orchestrator.
 */
export function defaultRoles(os: Os, orchestrator: string): Role[] {
  if (os === 'windows') return ['vrouter', 'win_cnm_plugin'];
  const roles: Role[] = ['config_database', 'config', 'control', 'analytics_database', 'analytics', 'webui', 'vrouter'];
  if (orchestrator === 'openstack') roles.push('openstack', 'openstack_compute');
  if (orchestrator === 'kubernetes') roles.push('k8s_master', 'kubemanager', 'k8s_node');
  return roles;
}
