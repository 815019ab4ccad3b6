// A simulated cluster for a desired state: one simulated host per node (src/sim/cluster.ts keeps them and
// their saved states), each behind a sim executor. What is decided here is what host a node stands for, and what
// the world around the nodes serves them in a rehearsal: the registry each node pulls from and the image tags it
// pins, and a controller outside the inventory (KEYSTONE_AUTH_HOST, CONTROLLER_NODES) that its nodes reach.

import type { Executor } from '../dataplane/executor.js';
import { SimExecutor, type SimShells, SocketSimExecutor } from '../dataplane/sim-executor.js';
import { configText } from '../inventory/configuration.js';
import type { NodeSpec } from '../inventory/desired-state.js';
import { usesSignedVrouter } from '../reconciler/role-input.js';
import { type HostDescription, type Publishes, publish, SimHosts } from '../sim/cluster.js';
import type { HostProcess } from '../sim/transports/host-process.js';
import { registryOf } from '../sim/windows/docker.js';
import { nicsFor } from './sim-nics.js';

export interface SimClusterOptions {
  /** The shells of hosts simulated in this process; not needed when `process` holds them. */
  shells?: SimShells;
  /** A process of simulated hosts (sim.ownProcess, sim.socket, the scale benchmark): the hosts run there, not here. */
  process?: Pick<HostProcess, 'socket'>;
  rebootMs: number;
  latencyMs: number;
  /** Where host states live; none keeps them in memory. */
  dir?: string;
  /** Registries the rehearsal makes unreachable (`sim.unreachableRegistries`): a pull from them fails as a lookup does. */
  unreachableRegistries?: string[];
}

/** What the world publishes for a node: its registry (unless made unreachable) and every version it pins. */
function publishesFor(node: NodeSpec, unreachable: readonly string[]): Publishes {
  const registry = registryOf(`${node.registry}/image`);
  return {
    registries: unreachable.includes(registry) ? [] : [registry],
    contrailVersions: [node.versions.contrail.version],
  };
}

/**
 * The controllers a node reaches that no node of the inventory stands for: Keystone at KEYSTONE_AUTH_HOST when no
 * node hosts it (the inventory resolved that), the config API at the address the node's role asks
 * (CONTROL_NODES, else CONTROLLER_NODES: reconciler/role-input.ts). A node of the inventory made later at the same
 * address takes it over on the network (SimNetwork.attach replaces).
 */
function externalControllers(node: NodeSpec, nodeAddresses: ReadonlySet<string>): HostDescription[] {
  const keystone = node.keystone && !node.keystone.hostNode ? node.keystone.address : undefined;
  const listed = configText(node.configuration, 'CONTROL_NODES') ?? configText(node.configuration, 'CONTROLLER_NODES') ?? '';
  const configApi = listed.split(/[\s,]+/).find(Boolean);
  const password = configText(node.configuration, 'KEYSTONE_AUTH_ADMIN_PASSWORD');
  const user = configText(node.configuration, 'KEYSTONE_AUTH_ADMIN_USER') ?? 'admin';
  return [...new Set([keystone, configApi])]
    .filter((address): address is string => address !== undefined && !nodeAddresses.has(address))
    .map((address) => ({
      name: `controller-${address}`,
      os: 'linux',
      address,
      linux: {
        configApi: address === configApi,
        ...(address === keystone && password !== undefined ? { keystone: { user, password } } : {}),
      },
    }));
}

function hostFor(node: NodeSpec, unreachable: readonly string[]): HostDescription {
  const publishes = publishesFor(node, unreachable);
  if (node.os === 'windows') {
    // A host on the signed vRouter stands for one prepared by hand: features in, nothing to reboot for.
    const signed = usesSignedVrouter(node);
    // A Kubernetes worker stands for a host given containerd when it was provisioned (groundcrew checks, never installs it).
    return {
      name: node.name,
      os: 'windows',
      address: node.address,
      publishes,
      windows: {
        signedVrouter: signed,
        ...(signed ? { features: ['Containers', 'Hyper-V'] } : {}),
        containerd: node.roles.includes('k8s_node'),
        // Every adapter the inventory names exists, addressed (sim-nics.ts).
        nics: nicsFor(node),
      },
    };
  }
  // A node with the config role stands for a Contrail control plane deployed outside groundcrew; one with an
  // openstack role for the OpenStack controller kolla-ansible deployed, its Keystone admin as the inventory says.
  const password = node.hostsKeystone ? configText(node.configuration, 'KEYSTONE_AUTH_ADMIN_PASSWORD') : undefined;
  const user = configText(node.configuration, 'KEYSTONE_AUTH_ADMIN_USER') ?? 'admin';
  return {
    name: node.name,
    os: 'linux',
    address: node.address,
    publishes,
    linux: { configApi: node.roles.includes('config'), ...(password !== undefined ? { keystone: { user, password } } : {}) },
  };
}

/** Simulated hosts made on demand, one per node, on one simulated network (the daemon's `transport: sim`). */
export class SimCluster {
  /** Hosts simulated in this process. */
  readonly executors = new Map<string, SimExecutor>();
  /** Hosts simulated in the host process. */
  readonly remote = new Map<string, SocketSimExecutor>();
  readonly #hosts: SimHosts;

  constructor(private readonly options: SimClusterOptions) {
    this.#hosts = new SimHosts(options.process ? undefined : options.dir);
  }

  /** The addresses of the inventory's nodes: a controller at one of them is a node, not the world's. */
  readonly #nodeAddresses = new Set<string>();

  executor(node: NodeSpec): Executor {
    const { process } = this.options;
    const unreachable = this.options.unreachableRegistries ?? [];
    if (process) {
      // Hosts in a process of their own get what their first revision publishes (the scale benchmark's pins never change).
      let remote = this.remote.get(node.name);
      if (!remote) {
        remote = new SocketSimExecutor({ socket: process.socket, host: hostFor(node, unreachable), latencyMs: this.options.latencyMs });
        this.remote.set(node.name, remote);
      }
      return remote;
    }
    this.#nodeAddresses.add(node.address);
    for (const controller of externalControllers(node, this.#nodeAddresses)) this.#hosts.host(controller);
    const existing = this.executors.get(node.name);
    if (existing) {
      // A later revision may pin another version or name another registry: the world publishes it too.
      publish(existing.host, publishesFor(node, unreachable));
      return existing;
    }
    const { shells } = this.options;
    if (!shells) throw new Error('a simulated cluster in this process needs its shells');
    const exec = new SimExecutor({
      host: this.#hosts.host(hostFor(node, unreachable)),
      shells,
      rebootMs: this.options.rebootMs,
      latencyMs: this.options.latencyMs,
      onChange: () => this.#hosts.save(node.name),
    });
    this.executors.set(node.name, exec);
    return exec;
  }
}
