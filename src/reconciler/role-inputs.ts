// From the desired state of one node to what its machine and its roles need: phase names and phases.

import { createHash } from 'node:crypto';
import { configText } from '../inventory/configuration.js';
import type { DesiredState, NodeSpec } from '../inventory/desired-state.js';
import { type ControlPlane, controlPlaneOf } from '../inventory/kubernetes.js';
import { type NodeOverlay, planOverlay } from '../inventory/overlay.js';
import { phasesFor, wantsTestSigning } from '../inventory/phases.js';
import type { KeystoneInput, KubeletBinary, KubeletInput, LinuxRoleInput, OverlayInput, WindowsRoleInput } from '../roles/input.js';
import { linuxPhases } from '../roles/linux/phases.js';
import type { Phase } from '../roles/phase.js';
import { windowsPhases } from '../roles/windows/phases.js';

export interface NodePlan {
  /** The machine's list, with rebootWait where Windows takes its batched reboot. */
  names: string[];
  /** The roles' phases, by name. */
  phases: Map<string, Phase>;
}

function keystoneFor(node: NodeSpec): KeystoneInput | undefined {
  if (!node.keystone) return undefined;
  const c = node.configuration;
  return {
    address: node.keystone.address,
    user: configText(c, 'KEYSTONE_AUTH_ADMIN_USER') ?? 'admin',
    password: configText(c, 'KEYSTONE_AUTH_ADMIN_PASSWORD') ?? '',
    project: configText(c, 'KEYSTONE_AUTH_ADMIN_TENANT') ?? 'admin',
    domain: 'Default',
  };
}

/** The Contrail controllers: CONTROL_NODES, else CONTROLLER_NODES, else the nodes with the config role. */
function controllers(state: DesiredState, node: NodeSpec): string[] {
  const listed = configText(node.configuration, 'CONTROL_NODES') ?? configText(node.configuration, 'CONTROLLER_NODES');
  if (listed) return listed.split(/[\s,]+/).filter(Boolean);
  return state.nodes.filter((n) => n.roles.includes('config')).map((n) => n.address);
}

/** What the roles need from the control host beyond the repo: the kubelet.exe of a version. */
export interface RoleEnvironment {
  kubeletBinary?: (version: string) => KubeletBinary;
}

/** The overlay planner and the control plane's version are worked out once per revision, not once per node. */
const overlays = new WeakMap<DesiredState, Map<string, NodeOverlay>>();
const controlPlanes = new WeakMap<DesiredState, ControlPlane | undefined>();

function controlPlane(state: DesiredState): ControlPlane | undefined {
  if (!controlPlanes.has(state)) controlPlanes.set(state, controlPlaneOf(state.nodes));
  return controlPlanes.get(state);
}

function overlayFor(state: DesiredState, node: NodeSpec, adapter?: string): OverlayInput | undefined {
  let plans = overlays.get(state);
  if (!plans) {
    plans = planOverlay(state.nodes);
    overlays.set(state, plans);
  }
  const plan = plans.get(node.name);
  if (!plan) return undefined;
  return {
    subnet: plan.subnet,
    gateway: plan.gateway,
    prefixLength: plan.prefixLength,
    routes: plan.routes.map(({ prefix, via, kind }) => ({ prefix, via, kind })),
    ports: plan.ports,
    ...(adapter ? { adapter } : {}),
  };
}

function kubeletFor(state: DesiredState, node: NodeSpec, env: RoleEnvironment): KubeletInput | undefined {
  const version = node.versions.kubernetes?.version;
  if (!node.roles.includes('k8s_node') || !version) return undefined;
  const c = node.configuration;
  const plane = controlPlane(state);
  const host = configText(c, 'KUBERNETES_API_SERVER') ?? plane?.address ?? '';
  const port = configText(c, 'KUBERNETES_API_SECURE_PORT') ?? '6443';
  return {
    version,
    binary: env.kubeletBinary?.(version) ?? { missing: 'no directory of Kubernetes binaries is configured (kubernetes.binaries)' },
    apiServer: `https://${host}:${port}`,
    caData: configText(c, 'KUBERNETES_CA_DATA') ?? '',
    bootstrapToken: configText(c, 'KUBERNETES_BOOTSTRAP_TOKEN') ?? '',
    clusterDns: configText(c, 'KUBERNETES_CLUSTER_DNS') ?? '10.96.0.10',
    clusterDomain: configText(c, 'KUBERNETES_CLUSTER_DOMAIN') ?? 'cluster.local',
  };
}

export type RoleInput = { os: 'windows'; input: WindowsRoleInput } | { os: 'linux'; input: LinuxRoleInput };

/** Everything the node's roles are built from: plain data, so two revisions can be compared by it. */
export function roleInput(state: DesiredState, node: NodeSpec, env: RoleEnvironment = {}): RoleInput {
  const keystone = keystoneFor(node);
  const control = controllers(state, node);
  if (node.os === 'windows') {
    const physical = configText(node.configuration, 'WINDOWS_PHYSICAL_INTERFACE');
    const overlay = overlayFor(state, node, physical);
    const kubelet = kubeletFor(state, node, env);
    return {
      os: 'windows',
      input: {
        node: node.name,
        contrailVersion: node.versions.contrail.version,
        ...(node.versions.docker ? { dockerVersion: node.versions.docker.version } : {}),
        registry: node.registry,
        testSigning: wantsTestSigning(node),
        physicalInterface: configText(node.configuration, 'WINDOWS_PHYSICAL_INTERFACE') ?? '',
        controlNodes: control.join(','),
        address: node.address,
        ...(keystone ? { keystone } : {}),
        ...(control[0] ? { configApi: { address: control[0] } } : {}),
        contrail: node.roles.includes('vrouter') || node.roles.includes('win_cnm_plugin'),
        ...(overlay ? { overlay } : {}),
        ...(kubelet ? { kubelet } : {}),
      },
    };
  }
  const environment: Record<string, string> = {};
  for (const key of Object.keys(node.configuration)) environment[key] = configText(node.configuration, key) ?? '';
  const overlay = overlayFor(state, node);
  const release = (state.kolla as { kolla_globals?: { openstack_release?: unknown } } | undefined)?.kolla_globals?.openstack_release;
  return {
    os: 'linux',
    input: {
      node: node.name,
      contrailVersion: node.versions.contrail.version,
      registry: node.registry,
      vrouter: node.roles.includes('vrouter'),
      openstackCompute: node.roles.includes('openstack_compute'),
      hostsKeystone: node.hostsKeystone,
      openstackRelease: typeof release === 'string' ? release : 'ocata',
      environment,
      ...(keystone ? { keystone } : {}),
      ...(node.hostsKeystone ? { keystoneAdminPassword: configText(node.configuration, 'KEYSTONE_AUTH_ADMIN_PASSWORD') ?? '' } : {}),
      ...(overlay ? { overlay } : {}),
    },
  };
}

/**
 * A digest of what the node is asked to be: its phases and its roles' input. Two revisions with the same
 * digest ask the same of the node, so a commit that does not touch it gives it no work.
 */
export function planDigest(state: DesiredState, node: NodeSpec, env: RoleEnvironment = {}): string {
  const names = phasesFor(node).map((p) => p.phase);
  // Functions (the kubelet's reader) drop out; its hash stays in.
  return createHash('sha256')
    .update(JSON.stringify({ names, role: roleInput(state, node, env) }))
    .digest('hex');
}

export function planNode(state: DesiredState, node: NodeSpec, env: RoleEnvironment = {}): NodePlan {
  const names = phasesFor(node).map((p) => p.phase);
  const role = roleInput(state, node, env);
  const phases = role.os === 'windows' ? windowsPhases(role.input) : linuxPhases(role.input);
  return { names, phases: new Map(phases.map((p) => [p.name, p])) };
}
