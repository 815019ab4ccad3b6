// /metrics: what Prometheus scrapes. Node counts are read from the status store at scrape time.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { heldByHalts } from '../reconciler/rollout-view.js';
import type { StatusStore } from '../reconciler/status-store.js';

export interface MetricProbes {
  ready: () => boolean;
  sourceStalled: () => boolean;
  halted: (sha: string) => boolean;
  /** Cluster mode: this member as it stands (every series below carries its `member` label). */
  cluster?: () => ClusterProbe;
}

export interface ClusterProbe {
  member: string;
  leader: boolean;
  ownedNodes: number;
  /** Seconds since this member's lease was last renewed (the fence closes at TTL/2). */
  leaseAgeSeconds: number;
  /** Not on the revision in force (waiting to fetch it, or none written yet). */
  waiting: boolean;
  /** Values read from etcd that did not parse, by kind. */
  rejectedValues: Record<string, number>;
}

export class Metrics {
  readonly registry = new Registry();
  readonly phaseDuration = new Histogram({
    name: 'groundcrew_phase_duration_seconds',
    help: 'Time one phase pass took on a node (test, set, re-test)',
    labelNames: ['phase', 'os'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });
  readonly commandDuration = new Histogram({
    name: 'groundcrew_command_duration_seconds',
    help: 'Time one command on a node took (SSH, PowerShell or simulated)',
    labelNames: ['os', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30],
    registers: [this.registry],
  });
  readonly webhooks = new Counter({
    name: 'groundcrew_webhooks_total',
    help: 'Webhook requests by provider and result',
    labelNames: ['provider', 'result'] as const,
    registers: [this.registry],
  });
  readonly revisions = new Counter({
    name: 'groundcrew_revisions_total',
    help: 'Revisions the source offered, accepted or rejected',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });

  readonly notifications = new Counter({
    name: 'groundcrew_notifications_total',
    help: 'Notifications by sink and outcome: sent, retried, failed (dropped after its retries), duplicate, rate-limited, overflow',
    labelNames: ['sink', 'type', 'result'] as const,
    registers: [this.registry],
  });

  readonly eventStreamsTurnedAway = new Counter({
    name: 'groundcrew_event_streams_turned_away_total',
    help: 'Live event streams (/api/events) refused past the cap on clients (reason "full") or dropped for falling behind ("behind")',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  /** What only the daemon knows (readiness, the source, the rollout's halt): read at scrape time once given. */
  #probes?: MetricProbes;
  /** The live event streams open now: the server says how to count them once it is built. */
  #openStreams: () => number = () => 0;

  /** How the server counts its open event streams. */
  countStreams(open: () => number): void {
    this.#openStreams = open;
  }

  /** The daemon's probes, once it has built them. */
  probe(probes: MetricProbes): void {
    this.#probes = probes;
    // Cluster mode: every series of this member says which member it is (one Prometheus job scrapes them all).
    const cluster = probes.cluster?.();
    if (cluster) this.registry.setDefaultLabels({ member: cluster.member });
  }

  /** `build`: what this groundcrew is, for `groundcrew_build_info` (the CLI's `version` says the same). */
  constructor(status: StatusStore, build: { version: string; commit: string } = { version: 'unknown', commit: 'unknown' }) {
    const probes = () => this.#probes;
    new Gauge({
      name: 'groundcrew_build_info',
      help: 'Always 1; its labels say which groundcrew this is: version, commit, and the Node.js it runs on',
      labelNames: ['version', 'commit', 'nodejs'] as const,
      registers: [this.registry],
    }).set({ version: build.version, commit: build.commit, nodejs: process.version }, 1);
    new Gauge({
      name: 'groundcrew_ready',
      help: '1 when the daemon is ready (a good revision in force, the source not stalled), else 0',
      registers: [this.registry],
      collect() {
        this.set(probes()?.ready() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'groundcrew_source_stalled',
      help: '1 while the source cannot fetch the repo (the server unreachable or refusing; retried with backoff) or a look has not finished for several poll intervals: new commits are not being applied',
      registers: [this.registry],
      collect() {
        this.set(probes()?.sourceStalled() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'groundcrew_rollout_halted',
      help: '1 while a node is held by a halted rollout (of the revision in force, or of an earlier one a later commit left it on)',
      registers: [this.registry],
      collect() {
        const halted = probes()?.halted;
        this.set(halted && heldByHalts(status.list(), halted).length > 0 ? 1 : 0);
      },
    });
    new Gauge({
      name: 'groundcrew_revision_rejected',
      help: '1 while the newest revision the source offered is rejected (nodes stay on the last good one)',
      registers: [this.registry],
      collect() {
        const newest = status.revisions()[0];
        this.set(newest && !newest.accepted ? 1 : 0);
      },
    });
    new Gauge({
      name: 'groundcrew_nodes',
      help: 'Nodes by state',
      labelNames: ['state'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        const counts = new Map<string, number>();
        for (const n of status.list()) counts.set(n.state, (counts.get(n.state) ?? 0) + 1);
        for (const [state, count] of counts) this.set({ state }, count);
      },
    });
    new Gauge({
      name: 'groundcrew_nodes_behind',
      help: 'Nodes whose last applied revision is not their desired one (revision lag)',
      registers: [this.registry],
      collect() {
        this.set(status.list().filter((n) => n.desiredRevision && n.lastAppliedRevision !== n.desiredRevision).length);
      },
    });
    const openStreams = () => this.#openStreams();
    new Gauge({
      name: 'groundcrew_event_streams',
      help: 'Live event streams (/api/events) open now',
      registers: [this.registry],
      collect() {
        this.set(openStreams());
      },
    });
    const cluster = (set: (c: ClusterProbe) => number) =>
      function (this: Gauge) {
        const c = probes()?.cluster?.();
        if (c) this.set(set(c));
      };
    new Gauge({
      name: 'groundcrew_cluster_leader',
      help: 'Cluster mode: 1 while this member is the leader (it follows Git and writes the revision in force)',
      registers: [this.registry],
      collect: cluster((c) => (c.leader ? 1 : 0)),
    });
    new Gauge({
      name: 'groundcrew_cluster_owned_nodes',
      help: 'Cluster mode: nodes this member holds the owner key of',
      registers: [this.registry],
      collect: cluster((c) => c.ownedNodes),
    });
    new Gauge({
      name: 'groundcrew_cluster_lease_age_seconds',
      help: "Cluster mode: seconds since this member's etcd lease was last renewed (it stops changing nodes at TTL/2)",
      registers: [this.registry],
      collect: cluster((c) => c.leaseAgeSeconds),
    });
    new Gauge({
      name: 'groundcrew_cluster_revision_waiting',
      help: 'Cluster mode: 1 while this member is not on the revision in force (not fetched yet, or none written)',
      registers: [this.registry],
      collect: cluster((c) => (c.waiting ? 1 : 0)),
    });
    new Counter({
      name: 'groundcrew_etcd_rejected_values_total',
      help: 'Cluster mode: values read from etcd that did not parse (skipped, never served), by kind; each change of a key counted once',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      collect() {
        const counts = probes()?.cluster?.().rejectedValues;
        if (!counts) return;
        this.reset();
        for (const [kind, n] of Object.entries(counts)) this.inc({ kind }, n);
      },
    });
    status.on('change', (e) => {
      if (e.type === 'report') {
        const phase = e.report.phases.at(-1);
        const os = status.get(e.report.node)?.os ?? 'linux';
        if (phase && !e.report.finishedAt) this.phaseDuration.observe({ phase: phase.phase, os }, phase.durationMs / 1000);
      }
      if (e.type === 'revision') this.revisions.inc({ result: e.revision.accepted ? 'accepted' : 'rejected' });
    });
  }
}
