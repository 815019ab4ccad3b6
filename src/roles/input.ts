// What a node's phases need to know, given by the reconciler (roles never read Git or other nodes).

/** Where Keystone is and the credentials that must get a token (the password is revealed by the caller). */
export interface KeystoneInput {
  address: string;
  /** Why this address: `KEYSTONE_AUTH_HOST`, or the node with an openstack role. */
  source: string;
  /** The inventory node that hosts Keystone, when it is one of ours: the openstack phase waits for it. */
  hostNode?: string;
  port?: number;
  /** KEYSTONE_AUTH_PROTO (c-a-d's default http). */
  proto?: 'http' | 'https';
  /** KEYSTONE_AUTH_URL_VERSION: the path of the CNM plugin's Os_auth_url (c-a-d's default /v2.0). */
  urlVersion?: string;
  /** KEYSTONE_AUTH_URL_TOKENS: where a token is asked for (c-a-d's default /v2.0/tokens). */
  urlTokens?: string;
  user: string;
  password: string;
  project: string;
  domain: string;
}

/** The OpenStack controller's nova-api a Linux compute checks (kolla-ansible's; groundcrew deploys none). */
export interface NovaApiInput {
  address: string;
  port?: number;
}

/** The Contrail config API the Windows vRouter registers with. */
export interface ConfigApiInput {
  address: string;
  port?: number;
}

/** Per-host-subnet overlay of one node, as the planner computed it from every labelled node. */
export interface OverlayInput {
  subnet: string;
  gateway: string;
  prefixLength: number;
  /** Peer subnets via their node's address; the service addresses via the gateway. */
  routes: { prefix: string; via: string; kind: 'peer' | 'service' }[];
  /** Host port -> pod address and port (Windows: netsh interface portproxy). */
  ports: { port: number; toAddress: string; toPort: number }[];
  /** Windows: the adapter the transparent network binds (overlay_interface, else WINDOWS_PHYSICAL_INTERFACE). */
  adapter?: string;
  /** The node's own (management) address: the adapter that carries it is never bound. */
  hostAddress?: string;
}

/** The kubelet.exe groundcrew copies: found on the control host (hash and bytes) or where it was looked for. */
export type KubeletBinary = { sha256: string; read: () => Promise<Buffer> } | { missing: string };

export interface KubeletInput {
  /** e.g. v1.29.4 */
  version: string;
  binary: KubeletBinary;
  /** https://host:port of the API server (the k8s_master, or KUBERNETES_API_SERVER). */
  apiServer: string;
  /** The cluster CA certificate as PEM text (KUBERNETES_CA_DATA; the secrets file or the repo): C:\\k\\ca.crt and the kubeconfig. */
  caData: string;
  /** The bootstrap token (KUBERNETES_BOOTSTRAP_TOKEN; from the daemon's secrets file). */
  bootstrapToken: string;
  clusterDns: string;
  clusterDomain: string;
}

export interface WindowsRoleInput {
  node: string;
  /** The node's roles: which phases it gets (vrouter, win_cnm_plugin, k8s_node). */
  roles: readonly string[];
  contrailVersion: string;
  /** Docker version to install when Docker is missing or differs (two parts, e.g. 18.09); any when unset. */
  dockerVersion?: string;
  registry: string;
  /** WINDOWS_ENABLE_TEST_SIGNING present and WINDOWS_USE_SIGNED_VROUTER not. */
  testSigning: boolean;
  /** WINDOWS_USE_SIGNED_VROUTER: the production-signed vRouter image (contrail-windows-vrouter-signed). */
  signedVrouter?: boolean;
  /** WINDOWS_PHYSICAL_INTERFACE: the data-plane adapter the vRouter binds. */
  physicalInterface: string;
  /** Controllers the agent talks to (CONTROL_NODES, else CONTROLLER_NODES). */
  controlNodes: string;
  /** The agent's [DNS] servers (c-a-d: DNS_NODES, else CONTROL_NODES); the control nodes when unset. */
  dnsNodes?: string;
  /** nodemgr's collectors (c-a-d: ANALYTICS_NODES, else CONTROLLER_NODES); the control nodes when unset. */
  analyticsNodes?: string;
  /** REGISTRY_PRIVATE_INSECURE: the registry is plain HTTP and goes into daemon.json's insecure-registries. */
  registryInsecure?: boolean;
  /** provider_config's domainsuffix: appended to the host's own name for its virtual-router (c-a-d). */
  domainSuffix?: string;
  /** The node's own address, for its virtual-router object. */
  address?: string;
  keystone?: KeystoneInput;
  configApi?: ConfigApiInput;
  /** The DLLs found in WINDOWS_DEBUG_DLLS_PATH on the control host, to copy into System32. */
  debugDlls?: { name: string; content: Buffer }[];
  overlay?: OverlayInput;
  /** Role k8s_node. */
  kubelet?: KubeletInput;
}

export interface LinuxRoleInput {
  node: string;
  /** The node's roles: what its verified phase checks on a controller. */
  roles: readonly string[];
  contrailVersion: string;
  registry: string;
  /** Role vrouter: the vRouter containers run here. */
  vrouter: boolean;
  /** Role openstack / openstack_control: kolla-ansible runs Keystone here (groundcrew only checks it answers). */
  hostsKeystone: boolean;
  /** common_vrouter.env: the merged configuration, as KEY=value lines (secrets revealed by the caller). */
  environment: Record<string, string>;
  /** Keystone this node must get a token from: a compute's, or its own on the node that hosts it. */
  keystone?: KeystoneInput;
  /** Role openstack_compute with Keystone: nova-api on the Keystone host must answer from the node. */
  novaApi?: NovaApiInput;
  overlay?: OverlayInput;
}

/** Everything a node's plan is built from: plain data, so two revisions can be compared by it. */
export type RoleInput = { os: 'windows'; input: WindowsRoleInput } | { os: 'linux'; input: LinuxRoleInput };

/** A Windows node with neither vrouter nor win_cnm_plugin (a Kubernetes worker) runs no Contrail data plane. */
export function runsContrail(input: WindowsRoleInput): boolean {
  return input.roles.includes('vrouter') || input.roles.includes('win_cnm_plugin');
}
