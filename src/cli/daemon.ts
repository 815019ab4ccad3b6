// The daemon, assembled: source → validated revision → reconciler → nodes, with the status store feeding
// the HTTP server. This is where concrete executors, stores and servers are built (with main.ts).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import type { Logger } from 'pino';
import { ClusterMember } from '../cluster/cluster-member.js';
import { newIdentityKey } from '../daemon-identity.js';
import { HostKeyStore } from '../dataplane/host-keys.js';
import { Limiter } from '../dataplane/limiter.js';
import type { Notifier } from '../dataplane/native/sd-notify.js';
import { SimShells } from '../dataplane/sim-executor.js';
import { ensurePrivateDir } from '../private-files.js';
import type { Coordination } from '../reconciler/coordination.js';
import { Intake } from '../reconciler/intake.js';
import { localCoordination } from '../reconciler/local-coordination.js';
import { Reconciler } from '../reconciler/reconciler.js';
import { haltOf } from '../reconciler/rollout-view.js';
import { SnapshotStore } from '../reconciler/snapshot-store.js';
import { StatusStore } from '../reconciler/status-store.js';
import { accessPolicy } from '../server/access.js';
import { buildServer } from '../server/app.js';
import { Metrics } from '../server/metrics.js';
import { HostProcess } from '../sim/transports/host-process.js';
import { CommitVerifier } from '../source/commit-signatures.js';
import { GitSource } from '../source/git-source.js';
import { PathSource } from '../source/path-source.js';
import type { Revision, Source } from '../source/source.js';
import { HOOK_KINDS, type HookKind } from '../source/webhooks.js';
import { ensureApiToken, writeRuntimeRecord } from './api-token.js';
import { buildInfo, packageRootOf } from './build-info.js';
import { type DaemonConfig, durationMs, signaturePolicy } from './daemon-config.js';
import { kubeletBinaries } from './kubelet-binaries.js';
import { nodeAccess } from './node-access.js';
import { logNodeProblems } from './node-problem-log.js';
import { startNotifications } from './notifications-config.js';
import { splitListen } from './runtime-record.js';
import { SimCluster } from './sim-cluster.js';

export interface DaemonDeps {
  log: Logger;
  notifier?: Notifier;
  /** Called once the server listens, before the source is read: a place to attach to the status store. */
  onListening?: (url: string, status: StatusStore) => void;
}

export interface Daemon {
  url: string;
  /** The file holding the API token (the configured one, or `<stateDir>/api-token`). */
  tokenFile: string;
  status: StatusStore;
  reconciler: Reconciler;
  source: Source;
  sim?: SimCluster;
  stop(): Promise<void>;
}

const readSecret = (file: string) => readFileSync(file, 'utf8').trim();
/** The installed package's root: its version and commit. */
const PACKAGE_ROOT = packageRootOf(import.meta.dirname);

export async function startDaemon(config: DaemonConfig, deps: DaemonDeps): Promise<Daemon> {
  const { log } = deps;
  // The state directory is this user's alone (snapshots, pins, the clone, the last good revision): a link or another
  // owner is refused, a loose mode tightened whatever the umask was when it was made.
  if (ensurePrivateDir(config.stateDir).tightened)
    log.warn({ stateDir: config.stateDir }, 'the state directory was readable by others: made private (0700)');
  const status = new StatusStore();
  const stopProblemLog = logNodeProblems(status, log);
  const metrics = new Metrics(status, buildInfo(PACKAGE_ROOT));

  // How each node is reached: over SSH (the credentials of instances.yaml, overridden by the daemon's),
  // or on a simulated host (`transport: sim`, globally or per node) to rehearse a change.
  // The simulator's grammars load only when some node is simulated: an SSH-only daemon starts without them.
  const simulated = config.transport === 'sim' || Object.values(config.nodes).some((n) => n.transport === 'sim');
  const simDir = join(config.stateDir, 'sim-hosts');
  const rebootMs = config.sim.rebootSeconds * 1000;
  const hostProcess =
    simulated && config.sim.ownProcess && !config.sim.socket
      ? await HostProcess.start({ socketDir: config.stateDir, rebootMs, stateDir: simDir })
      : undefined;
  const hosts = config.sim.socket ? { socket: config.sim.socket } : hostProcess;
  const sim = simulated
    ? new SimCluster({
        ...(hosts ? { process: hosts } : { shells: await SimShells.create() }),
        rebootMs,
        latencyMs: config.sim.latencyMs,
        dir: simDir,
        unreachableRegistries: config.sim.unreachableRegistries,
      })
    : undefined;
  // Which nodes this daemon drives, its budgets, snapshots, fence and revision in force: alone, or (cluster
  // mode) those of a member of the cluster, on etcd. Everything below goes through the one object.
  const coordination = config.cluster
    ? clusterMember(config.cluster, config.workers, status, log)
    : localCoordination({ snapshots: localSnapshots(config, log) });

  const access = nodeAccess({
    config,
    sim,
    hostKeys: coordination.pins(new HostKeyStore(join(config.stateDir, 'known-hosts.json'))),
    connections: new Limiter(config.ssh.maxConnections),
    metrics,
    log,
    fence: coordination.fence,
  });

  const reconciler = new Reconciler({
    status,
    access,
    coordination,
    limits: { rebootTimeoutMs: durationMs(config.reboot.timeout), settleMs: durationMs(config.reboot.settle) },
    concurrency: config.workers,
    resyncMs: durationMs(config.resyncInterval),
    log,
    roles: { kubeletBinary: kubeletBinaries(config.kubernetes.binaries ?? join(config.stateDir, 'kubernetes')) },
  });

  // A revision is validated whole before anything sees it; a bad one leaves the last good one in force.
  // With source.verify, one that nobody allowed signed is rejected the same way.
  const checkout = join(config.stateDir, 'checkout');
  const verifier = config.source.verify ? new CommitVerifier(signaturePolicy(config.source.verify), config.stateDir) : undefined;
  const intake = new Intake({
    reconciler,
    status,
    log,
    stateDir: config.stateDir,
    ...(config.secretsFile ? { secretsFile: config.secretsFile } : {}),
    shownPrefix: config.source.dir && config.source.dir !== '.' ? `${config.source.dir.replace(/\/$/, '')}/` : '',
    ...(verifier
      ? { verify: (revision: Revision, lastGood: string | undefined) => verifier.verify(checkout, revision.sha, lastGood) }
      : {}),
    onAccepted: (sha, nodes) => deps.notifier?.status(`revision ${sha.slice(0, 12)}, ${nodes} nodes`),
  });
  // A head the source found goes to intake now (alone), or once it is the revision in force (cluster mode: the
  // leader writes it; every member applies only what is written there).
  const onRevision = (revision: Revision) => coordination.offer(revision);

  const source: Source = config.source.url
    ? new GitSource({
        url: config.source.url,
        branch: config.source.branch,
        path: config.source.dir,
        checkout,
        pollMs: durationMs(config.source.pollInterval),
        ssh: {
          ...(config.source.sshKeyFile ? { keyFile: config.source.sshKeyFile } : {}),
          ...(config.source.knownHostsFile ? { knownHostsFile: config.source.knownHostsFile } : {}),
        },
        // git gets its proxy, CA file and SSH agent from here, nothing else (source/git-environment.ts).
        environment: process.env,
        // A local remote is read in place unless the clone must have the commit first (signatures are checked
        // there) or several members follow it (cluster mode: each applies the sha in force from its own clone).
        readLocalRemote: !config.source.verify && !config.cluster,
        log: log.child({ component: 'source' }),
        onRevision,
      })
    : new PathSource({
        dir: join(config.source.path as string, config.source.dir),
        debounceMs: 300,
        log: log.child({ component: 'source' }),
        onRevision,
      });

  coordination.flow({
    lookup: (sha) => source.revision?.(sha, 'revision in force') ?? Promise.resolve(undefined),
    fetch: (reason) => source.trigger(reason),
    deliver: (revision) => intake.receive(revision, source),
    descends: (sha, ancestor) => source.descends?.(sha, ancestor) ?? Promise.reject(new Error('a path source has no history')),
    lastGood: () => intake.lastGood(),
    head: () => source.head,
    rewindAllowed: (sha) => intake.rewindAllowed(sha),
    verify: Boolean(config.source.verify),
    refuse: (revision, from) => intake.refuseRewind(revision, from),
  });
  const hookSecrets: Partial<Record<HookKind, string>> = {};
  for (const kind of HOOK_KINDS) {
    const ref = config.webhooks[kind];
    if (ref) hookSecrets[kind] = readSecret(ref.secretFile);
  }
  const [host, port] = splitListen(config.listen);
  const api = ensureApiToken(config.stateDir, config.apiTokenFile);
  const identityKey = newIdentityKey();
  const server = buildServer({
    identityKey,
    status,
    metrics,
    log,
    branch: config.source.branch,
    fetchNow: (reason) => {
      coordination.announce(reason);
      return source.trigger(reason);
    },
    reconcile: (nodes) => reconciler.request(nodes),
    allowRewind: async (sha) => {
      intake.allowRewind(sha);
      // The source's head is that sha already (it was refused): offered again (a single process: to intake).
      const revision = source.head === sha ? await source.revision?.(sha, 'allow-rewind') : undefined;
      if (!revision) return { applied: false };
      await onRevision(revision);
      return { applied: true };
    },
    plan: (nodes) => reconciler.plan(nodes),
    rollout: (sha) => haltOf(reconciler.rollout, sha),
    resume: (sha) => reconciler.rollout.resume(sha),
    detail: coordination.detail,
    hookSecrets,
    access: accessPolicy(api.token, host, config.server.hosts),
    ready: () => {
      const fenced = coordination.notReady();
      if (fenced) return { ready: false, reason: fenced };
      const stalled = source.stalled?.();
      if (stalled) return { ready: false, reason: stalled };
      if (reconciler.revision) return { ready: true };
      return { ready: false, reason: intake.restoreFailure ?? 'no good revision of the inventory yet' };
    },
  });
  metrics.probe({
    ready: () => Boolean(reconciler.revision) && !source.stalled?.(),
    sourceStalled: () => Boolean(source.stalled?.()),
    halted: (sha) => reconciler.rollout.isHalted(sha),
    cluster: coordination.probe,
  });
  await server.listen({ host, port });
  const address = server.server.address();
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${typeof address === 'object' && address ? address.port : port}`;
  // V8's heap limit, so an operator sees whether the unit's NODE_OPTIONS reached the daemon (docs/operations.md).
  const heapLimitMiB = Math.round(getHeapStatistics().heap_size_limit / 1048576);
  // The record first: a CLI started on this line finds the daemon it announces.
  const removeRecord = writeRuntimeRecord(url, api.file, identityKey);
  log.info({ url, tokenFile: api.file, heapLimitMiB }, 'status page and API listening');
  // Before the source is read: the first revision is an event too. Sinks never hold the reconciler up.
  const stopNotifications = startNotifications(config.notifications, {
    status,
    rollout: (sha) => haltOf(reconciler.rollout, sha),
    metrics,
    log,
    url,
  });
  deps.onListening?.(url, status);
  await coordination.start(url);

  await source.start();
  deps.notifier?.ready(`serving ${url}`);
  // systemd's watchdog: ping at half the interval it asked for, from the event loop (a stuck loop misses it).
  const watchdogUsec = Number(process.env.WATCHDOG_USEC ?? 0);
  const watchdog = watchdogUsec > 0 ? setInterval(() => deps.notifier?.watchdog(), watchdogUsec / 2000) : undefined;

  return {
    url,
    tokenFile: api.file,
    status,
    reconciler,
    source,
    ...(sim ? { sim } : {}),
    async stop() {
      if (watchdog) clearInterval(watchdog);
      deps.notifier?.notify('STOPPING=1');
      await source.stop();
      await server.close();
      stopNotifications();
      stopProblemLog();
      removeRecord();
      await reconciler.stop();
      // Saves still being written land (a kill leaves the previous one, whole); a member leaves the cluster.
      await coordination.stop();
      hostProcess?.stop();
    },
  };
}

/** Cluster mode: this daemon drives only the nodes it owns, every command behind the fence. */
function clusterMember(cluster: NonNullable<DaemonConfig['cluster']>, workers: number, status: StatusStore, log: Logger): Coordination {
  return new ClusterMember<Revision>(
    {
      member: cluster.member,
      ttlMs: durationMs(cluster.leaseTtl),
      prefix: cluster.prefix,
      etcd: cluster.etcd,
      // Nodes a member takes start no faster than its workers can serve them (issue 19): `workers` a
      // second, and four times `workers` started and not yet settled at once.
      startRate: {
        perSecond: cluster.startRate ?? workers,
        burst: cluster.startRate ?? workers,
        window: 4 * workers,
      },
    },
    log.child({ component: 'cluster' }),
    status,
  );
}

/** A single process's node snapshots: files in the state directory. */
function localSnapshots(config: DaemonConfig, log: Logger): SnapshotStore {
  return new SnapshotStore(join(config.stateDir, 'snapshots'), (msg) => log.warn(msg));
}
