// A simulated cluster for a desired state: one simulated host per node (src/sim/cluster.ts keeps them and
// their saved states), each behind a sim executor. What is decided here is what host a node stands for.

import type { Executor } from '../dataplane/executor.js';
import { SimExecutor, type SimShells, SocketSimExecutor } from '../dataplane/sim-executor.js';
import { configText } from '../inventory/configuration.js';
import type { DesiredState, NodeSpec } from '../inventory/desired-state.js';
import { usesSignedVrouter } from '../reconciler/role-input.js';
import { type HostDescription, SimHosts } from '../sim/cluster.js';
import type { HostProcess } from '../sim/transports/host-process.js';

export interface SimClusterOptions {
  /** The shells of hosts simulated in this process; not needed when `process` holds them. */
  shells?: SimShells;
  /** A process of simulated hosts (sim.ownProcess, sim.socket, the scale benchmark): the hosts run there, not here. */
  process?: Pick<HostProcess, 'socket'>;
  rebootMs: number;
  latencyMs: number;
  /** Where host states live; none keeps them in memory. */
  dir?: string;
}

function hostFor(node: NodeSpec): HostDescription {
  if (node.os === 'windows') {
    // A host on the signed vRouter stands for one prepared by hand: features in, nothing to reboot for.
    const signed = usesSignedVrouter(node);
    // A Kubernetes worker stands for a host given containerd when it was provisioned (groundcrew checks, never installs it).
    return {
      name: node.name,
      os: 'windows',
      address: node.address,
      windows: {
        signedVrouter: signed,
        ...(signed ? { features: ['Containers', 'Hyper-V'] } : {}),
        containerd: node.roles.includes('k8s_node'),
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

  executor(node: NodeSpec): Executor {
    const { process } = this.options;
    if (process) {
      let remote = this.remote.get(node.name);
      if (!remote) {
        remote = new SocketSimExecutor({ socket: process.socket, host: hostFor(node), latencyMs: this.options.latencyMs });
        this.remote.set(node.name, remote);
      }
      return remote;
    }
    const existing = this.executors.get(node.name);
    if (existing) return existing;
    const { shells } = this.options;
    if (!shells) throw new Error('a simulated cluster in this process needs its shells');
    const exec = new SimExecutor({
      host: this.#hosts.host(hostFor(node)),
      shells,
      rebootMs: this.options.rebootMs,
      latencyMs: this.options.latencyMs,
      onChange: () => this.#hosts.save(node.name),
    });
    this.executors.set(node.name, exec);
    return exec;
  }
}

/** Every node of a desired state on its simulated host. */
export function simCluster(state: DesiredState, options: SimClusterOptions): Map<string, SimExecutor> {
  const cluster = new SimCluster(options);
  for (const node of state.nodes) cluster.executor(node);
  return cluster.executors;
}
