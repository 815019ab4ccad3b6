// `groundcrew status`, `reconcile`, `rollout resume` and `history`: the daemon's JSON API, read in a terminal.

import { SETTLED } from '../node-state.js';
import type { IntakeVerdict, NodeStatus, TransitionRecord } from '../reconciler/status-store.js';
import { type ClientOptions, call } from './daemon-client.js';
import { inert, inertJson } from './inert-text.js';
import type { Output } from './inventory-commands.js';

export const short = (sha?: string) => (sha ? sha.slice(0, 12) : '-');

export function since(iso: string, now: number): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m${s % 60}s` : `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

function reason(n: NodeStatus): string {
  if (n.lastError && n.state !== 'verified') return inert(`${n.lastError.code}: ${n.lastError.message.split('\n')[0]}`);
  return inert(n.waiting ?? (n.drift ? 'drift (monitor mode)' : ''));
}

/** The table `status` prints: one line per node, the reason of a stuck node on its line. */
export function renderStatus(nodes: NodeStatus[], revisions: IntakeVerdict[], now = Date.now()): string {
  const lines: string[] = [];
  const current = revisions.find((r) => r.accepted);
  lines.push(current ? `revision ${short(current.sha)}  ${inert(current.subject)}`.trimEnd() : 'no good revision yet');
  if (current?.rewind)
    lines.push(
      `  a rewind from ${short(current.rewind.from)} (${current.rewind.allowed ? 'allowed by an operator' : 'not a descendant; source.verify is off'})`,
    );
  const newest = revisions[0];
  if (newest && !newest.accepted) {
    lines.push(`revision ${short(newest.sha)} REJECTED; nodes stay on ${short(current?.sha)}:`);
    for (const e of newest.errors ?? []) lines.push(`  ${inert(e)}`);
    const more = (newest.errorCount ?? 0) - (newest.errors ?? []).length;
    if (more > 0) lines.push(`  … and ${more} more (${newest.errorCount} in all)`);
  }
  lines.push('', renderTable(nodes, now));
  return lines.join('\n');
}

/** One line per node: state, phase, versions, revisions, time in state and the reason a node is stuck. */
export function renderTable(nodes: NodeStatus[], now = Date.now()): string {
  const lines: string[] = [];
  const rows = nodes.map((n) => [
    inert(n.name),
    inert(n.state),
    inert(n.phase ?? n.reboot),
    `${inert(n.desiredVersions.contrail ?? '-')}→${inert(n.observedVersions.contrail ?? '-')}`,
    `${short(n.lastAppliedRevision)}/${short(n.desiredRevision)}`,
    since(n.since, now),
    reason(n),
  ]);
  const head = ['NODE', 'STATE', 'PHASE', 'CONTRAIL', 'APPLIED/DESIRED', 'FOR', 'REASON'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  for (const r of [head, ...rows])
    lines.push(
      r
        .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    );
  return lines.join('\n');
}

export async function statusCommand(options: ClientOptions & { json?: boolean; watch?: boolean }, io: Output): Promise<number> {
  const once = async () => {
    const [nodes, revisions] = await Promise.all([
      call<NodeStatus[]>(options, '/api/nodes'),
      call<IntakeVerdict[]>(options, '/api/revisions'),
    ]);
    return options.json ? inertJson(JSON.stringify(nodes, null, 2)) : renderStatus(nodes, revisions);
  };
  if (!options.watch) {
    io.out(await once());
    return 0;
  }
  const tty = process.stdout.isTTY === true;
  let last = '';
  for (;;) {
    const text = await once();
    if (text !== last || tty) io.out(tty ? `\x1b[H\x1b[2J${text}` : `${text}\n`);
    last = text;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

export async function reconcileCommand(
  nodes: string[],
  options: ClientOptions & { wait?: boolean; timeoutMs?: number },
  io: Output,
): Promise<number> {
  const asked = Date.now();
  const r = await call<{ reconciling: string[] }>(options, '/api/reconcile', { method: 'POST', body: JSON.stringify({ nodes }) });
  io.out(`reconciling ${r.reconciling.length} node${r.reconciling.length === 1 ? '' : 's'}: ${r.reconciling.map(inert).join(', ')}`);
  if (!options.wait) return 0;
  return waitForPasses(r.reconciling, asked, options, io);
}

/** A node whose pass is over, for better (verified, paused) or worse: settled, or left behind by the inventory. */
const resting = (state: string) => SETTLED.has(state) || state === 'orphaned';
const GOOD = new Set(['verified', 'paused']);

/**
 * `reconcile --wait`: each node's result once a pass that started after the request finished and the node rests
 * (as `flux reconcile` and `argocd app sync` wait); non-zero when any node is not verified, or the time ran out.
 */
async function waitForPasses(names: string[], asked: number, options: ClientOptions & { timeoutMs?: number }, io: Output): Promise<number> {
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  const pending = new Set(names);
  const lastSeen = new Map<string, NodeStatus>();
  let failed = 0;
  while (pending.size > 0) {
    for (const name of [...pending]) {
      const n = await call<NodeStatus & { reports: { startedAt: string; finishedAt?: string; result?: string }[] }>(
        options,
        `/api/nodes/${encodeURIComponent(name)}`,
      );
      lastSeen.set(name, n);
      const passed = n.reports.some((report) => report.finishedAt !== undefined && Date.parse(report.startedAt) >= asked - 1000);
      if (!passed || !resting(n.state)) continue;
      pending.delete(name);
      const why = n.lastError ? `: ${inert(n.lastError.code)} ${inert(n.lastError.message)}` : '';
      io.out(`${inert(name)}: ${inert(n.state)}${GOOD.has(n.state) ? '' : why}`);
      if (!GOOD.has(n.state)) failed += 1;
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      // Say what holds each node (a budget, a gate, a halt), as `kubectl rollout status` names what it waits on.
      const why = (name: string) => {
        const n = lastSeen.get(name);
        const holds = n?.waiting ? `: ${inert(n.waiting)}` : '';
        return `${inert(name)} (${inert(n?.state ?? 'not seen')}${holds})`;
      };
      io.err(`timed out waiting for ${[...pending].map(why).join('; ')}`);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return failed > 0 ? 1 : 0;
}

/** `groundcrew source allow-rewind SHA`: the head SHA may leave the revision in force behind (source.verify). */
export async function allowRewindCommand(sha: string, options: ClientOptions, io: Output): Promise<number> {
  const r = await call<{ allowed: string; applied: boolean }>(options, '/api/source/allow-rewind', {
    method: 'POST',
    body: JSON.stringify({ sha }),
  });
  io.out(
    r.applied
      ? `rewind to ${short(r.allowed)} allowed; it is the source's head and was handed to intake again (see groundcrew status)`
      : `rewind to ${short(r.allowed)} allowed; it applies when the source's head is that commit`,
  );
  return 0;
}

/** `groundcrew rollout resume REV`: the revision's halt released; its held nodes go on. */
export async function resumeCommand(revision: string, options: ClientOptions, io: Output): Promise<number> {
  const r = await call<{ revision: string; released: string[] }>(options, `/api/rollouts/${encodeURIComponent(revision)}/resume`, {
    method: 'POST',
  });
  io.out(
    `rollout of ${short(r.revision)} resumed: ${r.released.map(inert).join(', ')} no longer ${r.released.length === 1 ? 'counts' : 'count'} against its failure budget; its held nodes go on`,
  );
  return 0;
}

export async function historyCommand(node: string, options: ClientOptions, io: Output): Promise<number> {
  const n = await call<NodeStatus & { history: TransitionRecord[]; detailUnreadable?: string }>(
    options,
    `/api/nodes/${encodeURIComponent(node)}`,
  );
  // Cluster mode: the node's owner keeps its history in etcd, and what is there did not pass its check.
  if (n.detailUnreadable) {
    io.err(`${inert(node)}: history unreadable: ${inert(n.detailUnreadable)}`);
    return 1;
  }
  for (const t of n.history)
    io.out(
      [
        inert(t.at),
        inert(t.event ?? t.state).padEnd(18),
        inert(t.phase ?? t.reboot).padEnd(17),
        inert(short(t.revision)).padEnd(12),
        inert(t.detail),
      ]
        .join('  ')
        .trimEnd(),
    );
  return 0;
}

interface ObservedPlanJson {
  node: string;
  phases: { phase: string; wouldRun: boolean; resources: { resource: string; differing: string[] }[]; error?: string }[];
  error?: string;
}

/** `groundcrew plan --url`: the phases a pass would run on each node now, from the daemon's look at its facts. */
export async function observedPlanCommand(nodes: string[], options: ClientOptions & { json?: boolean }, io: Output): Promise<number> {
  const query = nodes.length > 0 ? `?nodes=${nodes.map(encodeURIComponent).join(',')}` : '';
  const plans = await call<ObservedPlanJson[]>(options, `/api/plan${query}`);
  if (options.json) {
    io.out(inertJson(JSON.stringify(plans, null, 2)));
    return 0;
  }
  for (const p of plans) {
    const running = p.phases.filter((x) => x.wouldRun);
    io.out(
      inert(
        `${p.node}: ${p.error ?? (running.length === 0 ? 'in its desired state, nothing would run' : `would run ${running.map((x) => x.phase).join(', ')}`)}`,
      ),
    );
    for (const phase of running) {
      if (phase.error) io.out(`  ${inert(phase.phase)}: cannot tell yet: ${inert(phase.error.split('\n')[0])}`);
      for (const r of phase.resources) io.out(`  ${inert(phase.phase)}  ${inert(r.resource)}: ${inert(r.differing.join(', '))}`);
    }
  }
  return 0;
}
