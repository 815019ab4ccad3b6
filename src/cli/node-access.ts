// How the daemon reaches each node: over SSH (the credentials of instances.yaml, overridden by the daemon's),
// or on a simulated host (`transport: sim`, globally or per node) to rehearse a change; every command timed
// for /metrics. SSH host keys are checked against the pin file, or in cluster mode the pins shared in etcd.

import type { Logger } from 'pino';
import type { Executor } from '../dataplane/executor.js';
import type { PinStore } from '../dataplane/host-keys.js';
import type { Limiter } from '../dataplane/limiter.js';
import { SshExecutor } from '../dataplane/ssh-executor.js';
import type { NodeSpec } from '../inventory/desired-state.js';
import type { Fence } from '../reconciler/coordination.js';
import type { NodeAccess } from '../reconciler/node-record.js';
import type { Metrics } from '../server/metrics.js';
import { type DaemonConfig, durationMs } from './daemon-config.js';
import type { SimCluster } from './sim-cluster.js';

/** Counts and times every command for /metrics. */
class TimedExecutor implements Executor {
  constructor(
    private readonly inner: Executor,
    private readonly metrics: Metrics,
  ) {}
  get os() {
    return this.inner.os;
  }
  async run(...args: Parameters<Executor['run']>) {
    const end = this.metrics.commandDuration.startTimer({ os: this.inner.os });
    try {
      const result = await this.inner.run(...args);
      end({ outcome: result.exitCode === 0 ? 'ok' : 'nonzero' });
      return result;
    } catch (err) {
      end({ outcome: 'error' });
      throw err;
    }
  }
  close() {
    return this.inner.close();
  }
}

export interface NodeAccessDeps {
  config: DaemonConfig;
  sim: SimCluster | undefined;
  hostKeys: PinStore;
  /** The global cap on open SSH connections. */
  connections: Limiter;
  metrics: Metrics;
  log: Logger;
  /**
   * The fence (coordination.ts): checked before every write to an SSH socket, so a command in flight stops
   * writing once this process may no longer change the node (the reconciler checks it before every command).
   */
  fence: Fence;
}

export function nodeAccess({ config, sim, hostKeys, connections, metrics, log, fence }: NodeAccessDeps): (spec: NodeSpec) => NodeAccess {
  return (spec: NodeSpec): NodeAccess => {
    const transport = config.nodes[spec.name]?.transport ?? config.transport;
    if (transport === 'sim' && sim) return { exec: new TimedExecutor(sim.executor(spec), metrics), poll: { initialMs: 200, maxMs: 1000 } };
    const windows = spec.os === 'windows';
    const user = (windows ? config.ssh.windowsUser : undefined) ?? config.ssh.user ?? spec.credentials.user;
    const key = (windows ? config.ssh.windowsKeyFile : undefined) ?? config.ssh.keyFile ?? spec.credentials.privateKeyFile;
    const password = spec.credentials.password?.reveal();
    const exec = new SshExecutor({
      target: {
        os: spec.os,
        host: spec.address,
        port: config.ssh.port,
        username: user,
        ...(key ? { privateKeyPath: key } : {}),
        ...(password ? { password } : {}),
      },
      node: spec.name,
      hostKeys,
      connections,
      mayWrite: () => fence.open(spec.name),
      log: ({ level, msg, ...rest }) => log[level]({ node: spec.name, ...rest }, msg),
    });
    // Boot-id polling after a reboot: from reboot.poll, backing off to ten times that (at most 15 s).
    const pollMs = durationMs(config.reboot.poll);
    return { exec: new TimedExecutor(exec, metrics), poll: { initialMs: pollMs, maxMs: Math.min(15_000, pollMs * 10) } };
  };
}
