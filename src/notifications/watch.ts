// Notification events, read from the status store's changes: a revision accepted or rejected, a rollout
// finished or halted, a node stalled, unreachable or recovered, drift found or corrected. The listener only
// compares and hands events on (synchronously): nothing here waits on a sink.

import { BUSY, type NodeState, TROUBLED } from '../node-state.js';
import { type RolloutHalt, rollingElsewhere, rolloutOf } from '../reconciler/rollout-view.js';
import type { IntakeVerdict, NodeStatus, StatusEvent, StatusStore } from '../reconciler/status-store.js';
import type { NotificationEvent } from './events.js';

export interface WatchOptions {
  /** The status page's address, for links (no trailing slash). */
  pageUrl: string;
  /** What the reconciler's rollout says of a revision (halted by the failure budget). */
  rollout: (sha: string) => RolloutHalt;
  /** A revision that changes no node is called finished once this long passed with nothing at work (default 2 s). */
  quietMs?: number;
  now?: () => Date;
}

const short = (sha: string) => sha.slice(0, 12);

/** Follows `status` and calls `emit` for each event; returns the function that stops following. */
export function watchStatus(status: StatusStore, emit: (e: NotificationEvent) => void, options: WatchOptions): () => void {
  const now = options.now ?? (() => new Date());
  /**
   * Each node's last state and drift, and the trouble (stalled or unreachable) it was last told to be in, kept until
   * it is verified again: a fix commit or a `git revert` heals a stalled node through converging, not straight
   * from stalled, and that is a recovery too.
   */
  const seen = new Map<string, { state: NodeState; drift: boolean; trouble?: NodeState }>();
  for (const n of status.list())
    seen.set(n.name, { state: n.state, drift: n.drift, ...(TROUBLED.has(n.state) ? { trouble: n.state } : {}) });
  /** Accepted revisions whose rollout has not ended, and those that ended (finished or halted once). */
  const open = new Map<string, IntakeVerdict>();
  const halted = new Set<string>();
  let quiet: NodeJS.Timeout | undefined;
  let check: NodeJS.Timeout | undefined;

  const event = (e: Omit<NotificationEvent, 'at'>) => emit({ ...e, at: now().toISOString() });
  const revisionUrl = (sha: string) => `${options.pageUrl}/revisions/${sha}`;
  const nodeUrl = (name: string) => `${options.pageUrl}/nodes/${encodeURIComponent(name)}`;

  const checkRollouts = (settledOnly: boolean) => {
    if (open.size === 0) return;
    const all = status.list();
    const busy = all.some((n) => BUSY.has(n.state) || n.waiting);
    for (const [sha, revision] of open) {
      const halt = options.rollout(sha);
      const view = rolloutOf(all, sha, halt);
      if (view.halted && !halted.has(sha)) {
        halted.add(sha);
        event({
          kind: 'rollout.halted',
          severity: 'error',
          revision: sha,
          // The rollout's reason is already the sentence ("rollout of … halted: … failed on it …"): said once.
          summary: view.haltReason ?? `rollout of ${short(sha)} halted: the failure budget is spent`,
          details: { failed: view.failed, held: view.held, applied: view.applied.length, nodes: view.nodes },
          url: revisionUrl(sha),
        });
        continue;
      }
      const finished = view.finished || (settledOnly && !busy && view.nodes === 0);
      if (!finished || view.halted) continue;
      // Nodes the commit left on an earlier revision are part of it too: not finished while one is still on its
      // way there (held by that revision's halt, or released and at work).
      if (rollingElsewhere(all, sha, (other) => options.rollout(other).halted).length > 0) continue;
      open.delete(sha);
      event({
        kind: 'rollout.finished',
        severity: 'info',
        revision: sha,
        summary:
          view.nodes === 0
            ? `${short(sha)} ${revision.subject ?? ''}: changed no node`
            : `${short(sha)} ${revision.subject ?? ''}: applied on all ${view.nodes} node${view.nodes === 1 ? '' : 's'} it changes`,
        details: { nodes: view.nodes },
        url: revisionUrl(sha),
      });
    }
  };

  // A rollout is looked at once per 250 ms at most: at 10,000 nodes every settle would otherwise read them all.
  const scheduleCheck = () => {
    if (check || open.size === 0) return;
    check = setTimeout(() => {
      check = undefined;
      checkRollouts(false);
    }, 250);
    check.unref?.();
  };

  const onRevision = (r: IntakeVerdict) => {
    if (!r.accepted) {
      event({
        kind: 'revision.rejected',
        severity: 'error',
        revision: r.sha,
        summary: `revision ${short(r.sha)} ${r.subject ?? ''} rejected: nodes stay on the last good revision`,
        details: { errors: r.errors ?? [] },
        url: revisionUrl(r.sha),
      });
      return;
    }
    // A newer revision supersedes the rollouts still open: they end with it (their nodes move on).
    open.clear();
    open.set(r.sha, r);
    // A rewind (the head left the revision in force behind) is applied, and said louder.
    const rewind = r.rewind
      ? `, a rewind from ${short(r.rewind.from)} (${r.rewind.allowed ? 'allowed by an operator' : 'not a descendant'})`
      : '';
    event({
      kind: 'revision.accepted',
      severity: r.rewind ? 'warning' : 'info',
      revision: r.sha,
      summary: `revision ${short(r.sha)} ${r.subject ?? ''} accepted${rewind}: rolling out`,
      ...(r.rewind ? { details: { rewindFrom: r.rewind.from, rewindAllowed: r.rewind.allowed } } : {}),
      url: revisionUrl(r.sha),
    });
    clearTimeout(quiet);
    quiet = setTimeout(() => checkRollouts(true), options.quietMs ?? 2000);
    quiet.unref?.();
  };

  const onNode = (n: NodeStatus) => {
    const before = seen.get(n.name);
    let trouble = before?.trouble;
    const base = { node: n.name, url: nodeUrl(n.name), ...(n.desiredRevision ? { revision: n.desiredRevision } : {}) };
    const error = n.lastError ? `${n.lastError.code}: ${n.lastError.message}` : undefined;
    if (before?.state !== n.state) {
      if (TROUBLED.has(n.state)) {
        trouble = n.state;
        event({
          ...base,
          kind: n.state === 'stalled' ? 'node.stalled' : 'node.unreachable',
          severity: 'error',
          summary: `${n.name} ${n.state}${error ? `: ${error.split('\n')[0]}` : ''}`,
          ...(error ? { details: { error } } : {}),
        });
      } else if (n.state === 'verified' && trouble) {
        event({ ...base, kind: 'node.recovered', severity: 'info', summary: `${n.name} recovered (was ${trouble})` });
        trouble = undefined;
      }
    }
    seen.set(n.name, { state: n.state, drift: n.drift, ...(trouble ? { trouble } : {}) });
    if (n.drift && !before?.drift)
      event({ ...base, kind: 'drift.found', severity: 'warning', summary: `${n.name} differs from its revision (${n.mode} mode)` });
    if (before?.state !== n.state && !BUSY.has(n.state)) scheduleCheck();
  };

  const listener = (e: StatusEvent) => {
    if (e.type === 'revision') onRevision(e.revision);
    else if (e.type === 'node') onNode(e.node);
    else if (e.report.finishedAt && e.report.corrective && e.report.result === 'verified') {
      const changed = e.report.phases.flatMap((p) => p.resources).filter((r) => r.status === 'changed');
      if (changed.length > 0)
        event({
          kind: 'drift.corrected',
          severity: 'warning',
          node: e.report.node,
          revision: e.report.revision,
          summary: `${e.report.node}: drift corrected (${changed.map((r) => r.resource).join(', ')})`,
          url: nodeUrl(e.report.node),
        });
    }
  };
  status.on('change', listener);
  return () => {
    clearTimeout(quiet);
    clearTimeout(check);
    status.off('change', listener);
  };
}
