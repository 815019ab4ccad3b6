// The validated picture of the cluster an operator committed: what every later stage reads.

import type { Os } from '../os.js';
import type { Diagnostic } from './diagnostic.js';
import type { Role } from './roles.js';
import type { Mode, VersionComponent } from './schema.js';
import type { Secret } from './secret.js';

export type Provider = 'bms' | 'bms_win';

/** Configuration values as the operator wrote them (`18.10` stays "18.10"); `null` means present but empty. */
export type ConfigValue = string | Secret | null;
export type Configuration = Readonly<Record<string, ConfigValue>>;

export interface Credentials {
  user: string;
  password?: Secret;
  privateKeyFile?: string;
}

export interface DesiredVersion {
  version: string;
  /** Where the version came from, e.g. `nodes/win1.yaml` or `CONTRAIL_VERSION in instances.yaml`. */
  source: string;
}

export type DesiredVersions = { contrail: DesiredVersion } & Partial<Record<Exclude<VersionComponent, 'contrail'>, DesiredVersion>>;

/** A host port forwarded to `to` (`address:port` inside the node's per_host_subnet). */
export interface PublishedPort {
  port: number;
  to: string;
}

export interface KeystoneTarget {
  address: string;
  /** The inventory node that hosts Keystone, when it is one of ours: computes wait for it (a cross-node gate). */
  hostNode?: string;
  /** Why this address: `KEYSTONE_AUTH_HOST` or the node with an openstack role. */
  source: string;
}

export interface NodeSpec {
  name: string;
  address: string;
  hostname: string;
  /** provider_config's domainsuffix (c-a-d appends it to a Windows node's own host name for its virtual-router). */
  domainSuffix?: string;
  provider: Provider;
  os: Os;
  roles: Role[];
  /** True when instances.yaml gave no roles and the deployer's defaults are used. */
  rolesDefaulted: boolean;
  /** contrail_configuration < instance contrail_configuration < role-level dicts < nodes/<name>.yaml overrides. */
  configuration: Configuration;
  registry: string;
  versions: DesiredVersions;
  mode: Mode;
  paused: boolean;
  labels: Readonly<Record<string, string>>;
  publishedPorts: readonly PublishedPort[];
  /** nodes/<name>.yaml overlay_interface: the data adapter a Windows node's overlay binds. */
  overlayInterface?: string;
  credentials: Credentials;
  /** Set when the node needs Keystone (AUTH_MODE keystone, or an OpenStack compute). */
  keystone?: KeystoneTarget;
  /** True when kolla-ansible runs Keystone on this node (role openstack or openstack_control): groundcrew checks it, never deploys it. */
  hostsKeystone: boolean;
}

export interface RolloutPolicy {
  maxUnavailable: number | string;
  failureBudget: number | string;
  removalPolicy: 'orphan' | 'deconfigure';
}

export interface DesiredState {
  nodes: NodeSpec[];
  rollout: RolloutPolicy;
  /** kolla_config as written, with kolla_passwords wrapped as secrets. */
  kolla?: unknown;
  warnings: Diagnostic[];
}
