// A simulated cluster for a desired state: one in-process host per node, on one simulated network.
// With a directory, each host's state is kept there (written after every command), so the hosts
// outlive the process that drives them, as real hosts outlive a daemon.

import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SimExecutor, type SimShells } from '../dataplane/sim-executor.js';
import type { DesiredState, NodeSpec } from '../inventory/desired-state.js';
import { usesSignedVrouter } from '../inventory/phases.js';
import { LinuxHost, type LinuxState } from '../sim/linux/linux-host.js';
import { SimNetwork } from '../sim/network.js';
import { WindowsHost } from '../sim/windows/windows-host.js';
import type { WindowsState } from '../sim/windows/windows-state.js';

export interface SimClusterOptions {
  shells: SimShells;
  rebootMs: number;
  latencyMs: number;
  /** Where host states live; none keeps them in memory. */
  dir?: string;
}

function freshHost(node: NodeSpec): LinuxHost | WindowsHost {
  if (node.os === 'windows') {
    // A host on the signed vRouter stands for one prepared by hand: features in, nothing to reboot for.
    const signed = usesSignedVrouter(node);
    // A Kubernetes worker stands for a host given containerd when it was provisioned (groundcrew checks, never installs it).
    return WindowsHost.fresh({
      hostname: node.name,
      catalog: { signedVrouter: signed },
      ...(signed ? { features: ['Containers', 'Hyper-V'] } : {}),
      containerd: node.roles.includes('k8s_node'),
    });
  }
  // A node with the config role stands for a Contrail control plane deployed outside groundcrew.
  return LinuxHost.fresh(node.name, {}, { configApi: node.roles.includes('config') });
}

/** Simulated hosts made on demand, one per node, on one simulated network (the daemon's `transport: sim`). */
export class SimCluster {
  readonly network = new SimNetwork();
  readonly executors = new Map<string, SimExecutor>();

  constructor(private readonly options: SimClusterOptions) {
    if (options.dir) mkdirSync(options.dir, { recursive: true });
  }

  executor(node: NodeSpec): SimExecutor {
    const existing = this.executors.get(node.name);
    if (existing) return existing;
    const { dir } = this.options;
    const file = dir ? join(dir, `${node.name}.json`) : undefined;
    let host: LinuxHost | WindowsHost;
    if (file && existsSync(file)) {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as LinuxState | WindowsState;
      host = saved.os === 'windows' ? new WindowsHost(saved) : new LinuxHost(saved);
    } else host = freshHost(node);
    host.network = this.network;
    if (host instanceof LinuxHost) this.network.attach(node.address, host);
    const save = file
      ? (h: LinuxHost | WindowsHost) => {
          writeFileSync(`${file}.tmp-${process.pid}`, JSON.stringify(h.state));
          renameSync(`${file}.tmp-${process.pid}`, file);
        }
      : undefined;
    save?.(host);
    const exec = new SimExecutor({
      host,
      shells: this.options.shells,
      rebootMs: this.options.rebootMs,
      latencyMs: this.options.latencyMs,
      ...(save ? { onChange: save } : {}),
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
