// Issue 19's benchmark: cluster mode at scale. N simulated nodes (10,000 by default) converged from one commit by
// one, two and three members (a fresh etcd, host process and members each round), read from the statuses the
// owners write to etcd; each member's share of the nodes and peak RSS. Then, three members converged, failover:
// a commit gives a subset of nodes work, the member driving a chosen node is killed (SIGKILL) on that node's
// second command, and the times from the kill to the node's next command (from the simulated hosts' own record
// of who sent it) and to the node verified are compared with the lease TTL.

import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ownerOf } from '../src/cluster/rendezvous.js';
import type { HostCall } from '../src/sim/transports/host-process.js';
import { BenchRepo, BenchRound, buildDaemon, type MemberProcess, PREFIX, peakRssMiB } from './ha-members.js';
import { FailoverTimeline, leaderOf } from './ha-timeline.js';
import { bigInventory } from './inventory-parse.js';
import { median, type Spread, spread } from './stats.js';

export const LEASE_TTL_MS = 10_000;
/** Member counts to converge with: GC_BENCH_HA_MEMBERS=1,2,3 by default; failover needs the 3. */
const SIZES = (process.env.GC_BENCH_HA_MEMBERS ?? '1,2,3').split(',').map(Number);
const LATENCY_MS = 5;
const WORKERS = 64;
/** Nodes a failover round's commit changes (the chosen node is the first). */
const FAILOVER_SUBSET = 50;

export interface ConvergeRound {
  members: number;
  seconds: number;
  /** Nodes each member owned once converged. */
  shares: Record<string, number>;
  /** Each member's peak RSS (VmHWM), and the host process's. */
  peakRssMiB: Record<string, number>;
  hostsPeakRssMiB: number;
  etcdDbMiB: number;
  /** Verified nodes on the revision as the first member's /api/nodes counts them (its own and the others'). */
  apiVerifiedAtFirstMember: number;
  loadBefore: number;
  loadAfter: number;
  /** Per member: how often its /readyz said not ready during the converge (one look a poll), and the last reason. */
  notReady: Record<string, { samples: number; notReady: number; noAnswer?: number; lastReason?: string }>;
  /** Set when the round did not converge within GC_BENCH_HA_TIMEOUT_S: what was seen, and each member's log's end. */
  failure?: string;
  logTails?: Record<string, string[]>;
}

export interface FailoverRound {
  node: string;
  killed: string;
  /** The elected leader when the member was killed. */
  leader?: string;
  /** Nodes the killed member owned. */
  orphaned: number;
  newOwner: string;
  /** Killed → the node's next command (from another member), as the host process received it. */
  firstCommandMs: number;
  /** Killed → the node verified on the commit, as its new owner's /api/nodes/NODE says. */
  verifiedMs: number;
  /** The commit's push → every node verified on it. */
  commitConvergedSeconds: number;
  /** The killed member started again → ownership back to the rendezvous hash's, every node verified. */
  rebalanceSeconds: number;
  load: number;
}

export interface HaScaleResult {
  nodes: number;
  windows: number;
  latencyMsPerCommand: number;
  workersPerMember: number;
  leaseTtlMs: number;
  rounds: number;
  converge: ConvergeRound[];
  /** Seconds to converge, per member count. */
  convergeSpread: Record<string, Spread>;
  /** Median with one member / median with three: 1 or more means three are not slower. */
  speedupThreeOverOne: number;
  failover: FailoverRound[];
  /** Why a failover round did not finish (the rounds before it stand). */
  failoverFailure?: string;
  firstCommandSpread: Spread;
  verifiedSpread: Spread;
}

const load = () => Number(loadavg()[0]?.toFixed(2));
const progress = (line: string) => {
  if (process.env.GC_BENCH_HA_PROGRESS) console.error(`ha-scale: ${line}`);
};

/** How often the statuses are read from etcd: every read is the whole cluster's (about 0.7 KiB a node). */
const pollMs = (nodes: number) => (nodes > 1000 ? 3000 : 1000);

function nodeNames(nodes: number): string[] {
  return ['ctrl', ...Array.from({ length: nodes - 1 }, (_, i) => `node-${i}`)];
}

/**
 * Waits until `changed` nodes are verified on `sha` and all `nodes` on their desired revision, per the statuses
 * the owners wrote to etcd; returns the seconds since `from`.
 */
async function convergedOn(
  round: BenchRound,
  sha: string,
  changed: number,
  nodes: number,
  from: number,
  timeoutMs: number,
): Promise<number> {
  let lastShown = performance.now();
  for (const deadline = performance.now() + timeoutMs; ; await sleep(pollMs(nodes))) {
    round.checkAlive();
    const { onSha, settled } = await round.verified(sha).catch(() => ({ onSha: 0, settled: 0 }));
    if (onSha >= changed && settled >= nodes) return (performance.now() - from) / 1000;
    const seen = `${onSha}/${changed} verified on the commit, ${settled}/${nodes} on their desired revision`;
    if (performance.now() - lastShown > 30_000) {
      lastShown = performance.now();
      progress(`${seen} after ${((performance.now() - from) / 1000).toFixed(0)} s, load ${load()}`);
    }
    if (performance.now() > deadline) throw new Error(`${seen} after ${timeoutMs} ms`);
  }
}

async function apiVerified(url: string, sha: string): Promise<number> {
  const res = await fetch(`${url}/api/nodes?state=verified&revision=${sha}&limit=1`, { signal: AbortSignal.timeout(30_000) });
  return Number(res.headers.get('x-total-count') ?? -1);
}

/** Looks at each member's /readyz every few seconds while a converge runs: a fenced member says why. */
function watchReadiness(round: BenchRound): { notReady: ConvergeRound['notReady']; stop: () => void } {
  const notReady: ConvergeRound['notReady'] = {};
  const timer = setInterval(() => {
    for (const m of round.members.values()) {
      const seen = notReady[m.name] ?? { samples: 0, notReady: 0 };
      notReady[m.name] = seen;
      void fetch(`${m.url}/readyz`, { signal: AbortSignal.timeout(2000) })
        .then(async (res) => {
          seen.samples++;
          if (res.ok) return;
          seen.notReady++;
          seen.lastReason = ((await res.json()) as { reason?: string }).reason;
        })
        .catch(() => {
          // No answer within 2 s: the member's event loop was held that long.
          seen.samples++;
          seen.noAnswer = (seen.noAnswer ?? 0) + 1;
        });
    }
  }, 3000);
  return { notReady, stop: () => clearInterval(timer) };
}

interface NodeView {
  state: string;
  lastAppliedRevision?: string;
  history?: unknown[];
  reports?: unknown;
}

interface Setup {
  dir: string;
  repo: BenchRepo;
  nodes: number;
  inventory: string;
  etcdPort: number;
  timeoutMs: number;
}

/** One round: `size` fresh members converge every node from one commit. Returns the round left running. */
async function convergeRound(
  setup: Setup,
  size: number,
  index: number,
  started: (round: BenchRound) => void,
): Promise<{ result: ConvergeRound; round: BenchRound }> {
  const { repo, nodes } = setup;
  const round = await BenchRound.start({
    dir: join(setup.dir, `round-${index}`),
    origin: repo.origin,
    etcdPort: setup.etcdPort,
    leaseTtl: `${LEASE_TTL_MS / 1000}s`,
    latencyMs: LATENCY_MS,
    workers: WORKERS,
  });
  started(round);
  try {
    // The members start on a commit that names no node, then the whole inventory arrives in one commit.
    repo.commit(`round ${index}: no node`, { 'instances.yaml': 'instances: {}\n', nodes: null });
    const names = Array.from({ length: size }, (_, i) => `m${i + 1}`);
    for (const name of names) await round.startMember(name);
    await round.registered(names);
    const loadBefore = load();
    const sha = repo.commit(`round ${index}: ${nodes} nodes`, { 'instances.yaml': setup.inventory });
    const pushed = performance.now();
    const readiness = watchReadiness(round);
    let seconds = Number.NaN;
    let failure: string | undefined;
    try {
      seconds = await convergedOn(round, sha, nodes, nodes, pushed, setup.timeoutMs);
    } catch (err) {
      // Said, with what each member reported, and the next member count still runs.
      failure = (err as Error).message;
    } finally {
      readiness.stop();
    }
    const loadAfter = load();
    const shares: Record<string, number> = Object.fromEntries(names.map((n) => [n, 0]));
    for (const owner of (await round.owners()).values()) shares[owner] = (shares[owner] ?? 0) + 1;
    const first = round.members.get('m1');
    const result: ConvergeRound = {
      members: size,
      seconds,
      shares,
      peakRssMiB: Object.fromEntries([...round.members.values()].map((m) => [m.name, peakRssMiB(m.proc.pid)])),
      hostsPeakRssMiB: peakRssMiB(round.hosts.pid),
      etcdDbMiB: await round.etcdDbMiB(),
      apiVerifiedAtFirstMember: first ? await apiVerified(first.url, sha).catch(() => -1) : -1,
      loadBefore,
      loadAfter,
      notReady: readiness.notReady,
      ...(failure
        ? { failure, logTails: Object.fromEntries([...round.members.values()].map((m) => [m.name, m.log.trim().split('\n').slice(-8)])) }
        : {}),
    };
    progress(`${size} member(s): ${failure ?? `${seconds.toFixed(1)} s`}, shares ${JSON.stringify(shares)}`);
    return { result, round };
  } catch (err) {
    await round.stop();
    throw err;
  }
}

/** One failover on a converged three-member round; leaves it converged again on the new commit, rebalanced. */
async function failoverRound(setup: Setup, round: BenchRound, index: number): Promise<FailoverRound> {
  const names = nodeNames(setup.nodes).slice(1);
  const owners = await round.owners();
  const leader = await leaderOf(round.etcd.endpoints, PREFIX);
  // GC_BENCH_HA_KILL: `leader` kills the elected leader (the member that follows Git), `follower` another one;
  // by default whichever member owns the first node of the subset. The subset starts at the first node (in the
  // same order as by default) whose owner fits.
  // GC_BENCH_HA_HEIR=newest: and the node goes to the member started last (after a failover round, the one that
  // came back: it may still be starting the nodes it took back).
  const kill = process.env.GC_BENCH_HA_KILL ?? 'any';
  const newest = [...round.members.values()].sort((a, b) => b.startedAt - a.startedAt)[0]?.name;
  const fits = (node: string) => {
    const owner = owners.get(node);
    if (owner === undefined || (kill === 'leader' && owner !== leader) || (kill === 'follower' && owner === leader)) return false;
    if (process.env.GC_BENCH_HA_HEIR !== 'newest') return true;
    return (
      ownerOf(
        node,
        [...round.members.keys()].filter((m) => m !== owner),
      ) === newest
    );
  };
  let first = index * 97;
  while (!fits(names[first % names.length] as string))
    if (++first > index * 97 + names.length) throw new Error(`failover: no node owned by a ${kill} member (leader ${leader})`);
  const subset = Array.from(
    { length: Math.min(FAILOVER_SUBSET, names.length) },
    (_, i) => names[(first + i * 13) % names.length] as string,
  );
  const node = subset[0] as string;
  const killed = owners.get(node);
  const victim = killed ? round.members.get(killed) : undefined;
  if (!killed || !victim) throw new Error(`${node} has no owner among the members`);
  const timeline = await FailoverTimeline.start(round.etcd.endpoints, PREFIX, node);
  try {
    return await killAndResume(setup, round, index, { subset, node, killed, victim, leader, owners, timeline });
  } finally {
    await timeline.stop();
  }
}

interface Victim {
  subset: string[];
  node: string;
  killed: string;
  victim: MemberProcess;
  leader: string | undefined;
  owners: Map<string, string>;
  timeline: FailoverTimeline;
}

async function killAndResume(setup: Setup, round: BenchRound, index: number, chosen: Victim): Promise<FailoverRound> {
  const { subset, node, killed, victim, leader, owners, timeline } = chosen;
  const orphaned = [...owners.values()].filter((m) => m === killed).length;
  const calls: HostCall[] = [];
  let onCall: (() => void) | undefined;
  round.hosts.watch([node], (call) => {
    calls.push(call);
    onCall?.();
  });
  const waitFor = async (test: () => boolean, what: string, timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (!test()) {
      round.checkAlive();
      if (performance.now() > deadline) throw new Error(`failover: ${what} not seen within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        onCall = resolve;
        setTimeout(resolve, 200);
      });
    }
  };
  // Versions the simulated registries hold (src/sim: contrailVersions), each other than the inventory's 5.0.1.
  const version = ['5.1.0', '5.0.2', '5.0.0'][index % 3] as string;
  const files = Object.fromEntries(subset.map((n) => [`nodes/${n}.yaml`, `versions:\n  contrail: "${version}"\n`]));
  const pushedAt = Date.now();
  const pushed = performance.now();
  const sha = setup.repo.commit(`failover ${index}: ${subset.length} nodes to ${version}`, files);
  // Killed on the node's second command of this commit: the node is in the middle of its work.
  await waitFor(() => calls.filter((c) => c.at >= pushedAt && c.pid === victim.proc.pid).length >= 2, `${node}'s second command`, 120_000);
  await round.kill(killed);
  const killedAt = Date.now();
  timeline.mark(`${killed} killed (SIGKILL; leader was ${leader})`, killedAt);
  await waitFor(() => calls.some((c) => c.at > killedAt), `a command to ${node} after the kill`, 10 * LEASE_TTL_MS);
  const next = calls.find((c) => c.at > killedAt) as HostCall;
  const newOwner = [...round.members.values()].find((m) => m.proc.pid === next.pid)?.name ?? `pid ${next.pid}`;
  const member = round.members.get(newOwner);
  let verifiedMs = Number.NaN;
  for (const deadline = Date.now() + 10 * LEASE_TTL_MS; Number.isNaN(verifiedMs); await sleep(100)) {
    round.checkAlive();
    const res = await fetch(`${member?.url}/api/nodes/${node}`, { signal: AbortSignal.timeout(5000) }).catch(() => undefined);
    const status = res?.ok ? ((await res.json()) as NodeView) : undefined;
    if (status?.state === 'verified' && status.lastAppliedRevision === sha) verifiedMs = Date.now() - killedAt;
    else if (Date.now() > deadline) {
      const seen = calls.filter((c) => c.at >= pushedAt).map((c) => `${c.at - killedAt} ms pid ${c.pid}`);
      const { history, reports, ...rest } = status ?? {};
      throw new Error(
        `failover: ${node} not verified on ${sha} at ${newOwner} (owner in etcd: ${(await round.owners()).get(node)}; ${killed} pid ${victim.proc.pid} killed); calls since the push: ${seen.join(', ')}\nstatus: ${JSON.stringify(rest)}\nhistory: ${JSON.stringify(history?.slice(-12))}\nerrors in etcd:\n${(await round.errors()).join('\n')}`,
      );
    }
  }
  for (const c of calls.filter((c) => c.at >= pushedAt)) timeline.mark(`${node} command from pid ${c.pid}`, c.at);
  timeline.mark(`${node} verified at its new owner (its /api/nodes)`, killedAt + verifiedMs);
  const events = timeline.lines(killedAt);
  progress(
    `failover ${index}: timeline of ${node} (ms from the kill; members ${[...round.members.values()].map((m) => `${m.name} pid ${m.proc.pid}`).join(', ')}):\n  ${events.join('\n  ')}`,
  );
  const commitConvergedSeconds = await convergedOn(round, sha, subset.length, setup.nodes, pushed, setup.timeoutMs);
  const loadNow = load();
  // The killed member comes back: nodes hashed to it move back as their owners let them go.
  const restarted = performance.now();
  await round.startMember(killed);
  const members = [...round.members.keys()];
  await round.registered(members);
  const all = nodeNames(setup.nodes);
  for (const deadline = performance.now() + setup.timeoutMs; ; await sleep(pollMs(setup.nodes))) {
    round.checkAlive();
    const now = await round.owners();
    const { onSha, settled } = await round.verified(sha);
    if (all.every((n) => now.get(n) === ownerOf(n, members)) && onSha >= subset.length && settled >= setup.nodes) break;
    if (performance.now() > deadline) throw new Error(`failover: ${killed} back, ownership not rebalanced`);
  }
  const rebalanceSeconds = (performance.now() - restarted) / 1000;
  const result = {
    node,
    killed,
    ...(leader ? { leader } : {}),
    orphaned,
    newOwner,
    firstCommandMs: next.at - killedAt,
    verifiedMs,
    commitConvergedSeconds,
    rebalanceSeconds,
    load: loadNow,
  };
  progress(`failover ${index}: ${JSON.stringify(result)}`);
  return result;
}

export async function runHaScale(nodes: number, rounds: number, failovers: number, dir: string): Promise<HaScaleResult> {
  buildDaemon();
  const inventory = bigInventory(nodes - 1);
  const setup: Setup = {
    dir,
    repo: new BenchRepo(dir),
    nodes,
    inventory,
    etcdPort: Number(process.env.GC_BENCH_HA_ETCD_PORT ?? 24810),
    timeoutMs: Number(process.env.GC_BENCH_HA_TIMEOUT_S ?? 3600) * 1000,
  };
  setup.repo.commit('groundcrew.yaml', { 'groundcrew.yaml': 'rollout:\n  maxUnavailable: "100%"\n' });
  const converge: ConvergeRound[] = [];
  const failover: FailoverRound[] = [];
  // Stopped from outside (a timeout, ^C): no etcd, host process or member outlives the benchmark.
  let current: BenchRound | undefined;
  const abandon = () => {
    current?.abandon();
    process.exit(130);
  };
  process.once('SIGINT', abandon);
  process.once('SIGTERM', abandon);
  let failureOf: string | undefined;
  // Sizes alternate within each round (1, 2, 3, 1, 2, 3, ...): the machine's load drifts over a run.
  let index = 0;
  for (let r = 0; r < rounds; r++) {
    for (const size of SIZES) {
      const last = r === rounds - 1 && size === 3;
      const { result, round } = await convergeRound(setup, size, index++, (r) => {
        current = r;
      });
      converge.push(result);
      if (!last || failovers === 0 || result.failure) {
        await round.stop();
        continue;
      }
      try {
        for (let f = 0; f < failovers; f++) failover.push(await failoverRound(setup, round, f));
      } catch (err) {
        // The converge figures stand; the failover that did not finish is said, with what was seen.
        failureOf = (err as Error).message;
        console.error(`ha-scale: failover ${failover.length} did not finish: ${failureOf}`);
      } finally {
        await round.stop();
      }
    }
  }
  const seconds = (size: number) => converge.filter((c) => c.members === size && Number.isFinite(c.seconds)).map((c) => c.seconds);
  return {
    nodes,
    windows: nodeNames(nodes).filter((_, i) => i > 0 && (i - 1) % 5 === 0).length,
    latencyMsPerCommand: LATENCY_MS,
    workersPerMember: WORKERS,
    leaseTtlMs: LEASE_TTL_MS,
    rounds,
    converge,
    convergeSpread: Object.fromEntries(SIZES.map((s) => [String(s), spread(seconds(s))])),
    speedupThreeOverOne: median(seconds(1)) / median(seconds(3)),
    failover,
    ...(failureOf ? { failoverFailure: failureOf } : {}),
    firstCommandSpread: spread(failover.map((f) => f.firstCommandMs)),
    verifiedSpread: spread(failover.map((f) => f.verifiedMs)),
  };
}
