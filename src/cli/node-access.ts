// How the daemon reaches each node: over SSH (the credentials of instances.yaml, overridden by the daemon's),
// or on a simulated host (`transport: sim`, globally or per node) to rehearse a change; every command timed
// for /metrics. SSH host keys are checked against the pin file, or in cluster mode the pins shared in etcd.

import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ClusterMember } from '../cluster/cluster-member.js';
import { SharedHostKeyPins } from '../cluster/host-key-pins.js';
import type { Executor } from '../dataplane/executor.js';
import { HostKeyStore, type PinStore } from '../dataplane/host-keys.js';
import type { Limiter } from '../dataplane/limiter.js';
import { SshExecutor } from '../dataplane/ssh-executor.js';
import type { NodeSpec } from '../inventory/desired-state.js';
import type { NodeAccess } from '../reconciler/reconciler.js';
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
  /** Cluster mode: whether this member may send anything to the node now (checked before every write). */
  fence?: (node: string) => boolean;
}

/**
 * The host key pins: `known-hosts.json` in the state directory; in cluster mode the pins every member shares in
 * etcd, that file their seed (cluster/host-key-pins.ts).
 */
export function hostKeyPins(
  config: DaemonConfig,
  cluster: Pick<ClusterMember, 'client' | 'keys' | 'settings'> | undefined,
  log: Logger,
): PinStore {
  const file = new HostKeyStore(join(config.stateDir, 'known-hosts.json'));
  if (!cluster) return file;
  return new SharedHostKeyPins({
    client: cluster.client,
    keys: cluster.keys,
    member: cluster.settings.member,
    file,
    timeoutMs: Math.max(1000, cluster.settings.ttlMs / 3),
    log: log.child({ component: 'cluster' }),
  });
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
      ...(fence ? { mayWrite: () => fence(spec.name) } : {}),
      log: ({ level, msg, ...rest }) => log[level]({ node: spec.name, ...rest }, msg),
    });
    // Boot-id polling after a reboot: from reboot.poll, backing off to ten times that (at most 15 s).
    const pollMs = durationMs(config.reboot.poll);
    return { exec: new TimedExecutor(exec, metrics), poll: { initialMs: pollMs, maxMs: Math.min(15_000, pollMs * 10) } };
  };
}
