// From the desired state to one node's role input: what its roles are asked to do, with what other nodes
// and the control host contribute (Keystone, controllers, the overlay, the kubelet binary) worked out.

import { createHash } from 'node:crypto';
import { configText } from '../inventory/configuration.js';
import type { DesiredState, NodeSpec } from '../inventory/desired-state.js';
import { type ControlPlane, controlPlaneOf } from '../inventory/kubernetes.js';
import { type NodeOverlay, planOverlay } from '../inventory/overlay.js';
import type { KeystoneInput, KubeletBinary, KubeletInput, OverlayInput, RoleInput } from '../roles/input.js';
import { crossNodeRead } from './cross-node.js';

function keystoneFor(node: NodeSpec): KeystoneInput | undefined {
  const c = node.configuration;
  // The node kolla-ansible put Keystone on checks that it answers there (groundcrew deploys no controller).
  const own = node.hostsKeystone
    ? { address: configText(c, 'KEYSTONE_AUTH_HOST') ?? node.address, source: 'this node has an openstack role' }
    : undefined;
  const target = node.keystone ?? own;
  if (!target) return undefined;
  // c-a-d's contrail_configuration_default (playbooks/roles/contrail/defaults/main.yml): http, 5000, /v2.0, /v2.0/tokens.
  const port = configText(c, 'KEYSTONE_AUTH_PUBLIC_PORT');
  return {
    address: target.address,
    source: target.source,
    ...(node.keystone?.hostNode ? { hostNode: node.keystone.hostNode } : {}),
    ...(port ? { port: Number(port) } : {}),
    proto: configText(c, 'KEYSTONE_AUTH_PROTO') === 'https' ? 'https' : 'http',
    urlVersion: configText(c, 'KEYSTONE_AUTH_URL_VERSION') ?? '/v2.0',
    urlTokens: configText(c, 'KEYSTONE_AUTH_URL_TOKENS') ?? '/v2.0/tokens',
    user: configText(c, 'KEYSTONE_AUTH_ADMIN_USER') ?? 'admin',
    password: configText(c, 'KEYSTONE_AUTH_ADMIN_PASSWORD') ?? '',
    project: configText(c, 'KEYSTONE_AUTH_ADMIN_TENANT') ?? 'admin',
    domain: 'Default',
  };
}

/** The addresses of the nodes with the config role. */
const configAddresses = crossNodeRead('config nodes', (state) =>
  state.nodes.filter((n) => n.roles.includes('config')).map((n) => n.address),
);

/** The addresses of the nodes with the analytics role. */
const analyticsAddresses = crossNodeRead('analytics nodes', (state) =>
  state.nodes.filter((n) => n.roles.includes('analytics')).map((n) => n.address),
);

/**
 * nodemgr's collectors: ANALYTICS_NODES, else CONTROLLER_NODES (c-a-d common_Win32NT.yml "set ANALYTICS_NODES
 * var"), else the nodes with the analytics role, else the controllers.
 */
function analytics(state: DesiredState, node: NodeSpec, control: string[]): string[] {
  const listed = configText(node.configuration, 'ANALYTICS_NODES') ?? configText(node.configuration, 'CONTROLLER_NODES');
  if (listed) return listed.split(/[\s,]+/).filter(Boolean);
  const found = analyticsAddresses(state);
  return found.length > 0 ? found : control;
}

/** The Contrail controllers: CONTROL_NODES, else CONTROLLER_NODES, else the nodes with the config role. */
function controllers(state: DesiredState, node: NodeSpec): string[] {
  const listed = configText(node.configuration, 'CONTROL_NODES') ?? configText(node.configuration, 'CONTROLLER_NODES');
  if (listed) return listed.split(/[\s,]+/).filter(Boolean);
  return configAddresses(state);
}

/** What the roles need from the control host beyond the repo: the kubelet.exe of a version. */
export interface RoleEnvironment {
  kubeletBinary?: (version: string) => KubeletBinary;
}

/** The Kubernetes control plane (its address and version). */
const controlPlane = crossNodeRead<ControlPlane | undefined>('control plane', (state) => controlPlaneOf(state.nodes));

/**
 * The overlay's plan of every node. Fingerprinted by what the plans are made from across nodes: each overlay
 * node's subnet and number of routes, and its address (the whole plans at 10,000 nodes are too big to compare).
 */
const overlayPlans = crossNodeRead<Map<string, NodeOverlay>>(
  'overlay',
  (state) => planOverlay(state.nodes),
  (plans, state) => [
    [...plans].map(([name, plan]) => [name, plan.subnet, plan.routes.length]),
    state.nodes.filter((n) => plans.has(n.name)).map((n) => [n.name, n.address]),
  ],
);

function overlayFor(state: DesiredState, node: NodeSpec, adapter?: string): OverlayInput | undefined {
  const plan = overlayPlans(state).get(node.name);
  if (!plan) return undefined;
  return {
    subnet: plan.subnet,
    gateway: plan.gateway,
    prefixLength: plan.prefixLength,
    routes: plan.routes.map(({ prefix, via, kind }) => ({ prefix, via, kind })),
    ports: plan.ports,
    ...(adapter ? { adapter } : {}),
    hostAddress: node.address,
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

/** Test signing is wanted when WINDOWS_ENABLE_TEST_SIGNING is present (even empty) and the signed vRouter is not used. */
export function wantsTestSigning(node: NodeSpec): boolean {
  return node.os === 'windows' && 'WINDOWS_ENABLE_TEST_SIGNING' in node.configuration && !usesSignedVrouter(node);
}

export function usesSignedVrouter(node: NodeSpec): boolean {
  const value = configText(node.configuration, 'WINDOWS_USE_SIGNED_VROUTER');
  // Present means yes, as in the deployer, unless it plainly says no.
  return 'WINDOWS_USE_SIGNED_VROUTER' in node.configuration && !/^(false|no|0)$/i.test(value ?? '');
}

/** Everything the node's roles are built from: plain data, so two revisions can be compared by it. */
export function roleInput(state: DesiredState, node: NodeSpec, env: RoleEnvironment = {}): RoleInput {
  const keystone = keystoneFor(node);
  const control = controllers(state, node);
  if (node.os === 'windows') {
    const physical = configText(node.configuration, 'WINDOWS_PHYSICAL_INTERFACE');
    // The overlay binds the data interface the node's file names, else WINDOWS_PHYSICAL_INTERFACE.
    const overlay = overlayFor(state, node, node.overlayInterface ?? physical);
    const kubelet = kubeletFor(state, node, env);
    return {
      os: 'windows',
      input: {
        node: node.name,
        roles: [...node.roles],
        contrailVersion: node.versions.contrail.version,
        ...(node.versions.docker ? { dockerVersion: node.versions.docker.version } : {}),
        registry: node.registry,
        testSigning: wantsTestSigning(node),
        // Only when set: the role input (and its digest) of every other node stays as it was.
        ...(usesSignedVrouter(node) ? { signedVrouter: true } : {}),
        physicalInterface: configText(node.configuration, 'WINDOWS_PHYSICAL_INTERFACE') ?? '',
        controlNodes: control.join(','),
        // c-a-d common_Win32NT.yml: DNS_NODES defaults to CONTROL_NODES.
        dnsNodes: (
          configText(node.configuration, 'DNS_NODES')
            ?.split(/[\s,]+/)
            .filter(Boolean) ?? control
        ).join(','),
        analyticsNodes: analytics(state, node, control).join(','),
        ...(/^(true|yes)$/i.test(configText(node.configuration, 'REGISTRY_PRIVATE_INSECURE') ?? '') ? { registryInsecure: true } : {}),
        ...(node.domainSuffix ? { domainSuffix: node.domainSuffix } : {}),
        address: node.address,
        ...(keystone ? { keystone } : {}),
        ...(control[0] ? { configApi: { address: control[0] } } : {}),
        ...(overlay ? { overlay } : {}),
        ...(kubelet ? { kubelet } : {}),
      },
    };
  }
  const environment: Record<string, string> = {};
  for (const key of Object.keys(node.configuration)) environment[key] = configText(node.configuration, key) ?? '';
  const overlay = overlayFor(state, node);
  return {
    os: 'linux',
    input: {
      node: node.name,
      roles: [...node.roles],
      contrailVersion: node.versions.contrail.version,
      registry: node.registry,
      vrouter: node.roles.includes('vrouter'),
      hostsKeystone: node.hostsKeystone,
      environment,
      ...(keystone ? { keystone } : {}),
      // nova-api sits with Keystone on the controller kolla-ansible deployed (or behind the same VIP).
      ...(keystone && node.roles.includes('openstack_compute') ? { novaApi: { address: keystone.address } } : {}),
      ...(overlay ? { overlay } : {}),
    },
  };
}

/**
 * A digest of what the node is asked to be: its role input, from which its whole plan follows. Two revisions
 * with the same digest ask the same of the node, so a commit that does not touch it gives it no work.
 */
export function inputDigest(role: RoleInput): string {
  // Functions (the kubelet's reader) drop out; its hash stays in.
  return createHash('sha256').update(JSON.stringify(role)).digest('hex');
}

/** What a revision holds for telling which nodes it touches: its specs, and cross-node.ts `sharedInputs`. */
export interface TouchInputs {
  specs: ReadonlyMap<string, NodeSpec>;
  shared?: string;
}

/**
 * Whether a revision may ask something new of a node: not when its NodeSpec is the same object as before (the
 * parse memo keeps a node whose files did not change) and nothing it reads from other nodes changed. A k8s_node
 * is always looked at: its kubelet comes from the control host, not from the repo.
 */
export function touched(name: string, before: TouchInputs, now: TouchInputs): boolean {
  const spec = now.specs.get(name);
  if (spec === undefined || before.shared === undefined || before.shared !== now.shared) return true;
  return before.specs.get(name) !== spec || spec.roles.includes('k8s_node');
}
