// A node's trouble in the daemon's log, once per change: it became unreachable, went to backoff or stalled, or its
// error changed (a connection refused, then an authentication failure); its recovery once it is verified again.
// Not on every retry, and not only once a rollout halts (issue 29: a node that could not be reached said nothing in
// the log until then).

import type { Logger } from 'pino';
import { FAILING } from '../node-state.js';
import type { NodeStatus, StatusEvent } from '../reconciler/status-store.js';

/** Logs each node's trouble as it changes; the function returned stops listening. */
export function logNodeProblems(
  status: { on(event: 'change', l: (e: StatusEvent) => void): unknown; off(event: 'change', l: (e: StatusEvent) => void): unknown },
  log: Logger,
): () => void {
  // Per node in trouble, what was said of it since it was last verified: a node that retries (unreachable, converging,
  // backoff, unreachable again) goes through the same troubles again and again, and each is said once. Only
  // verified is a recovery (a retry's converging is not: 13 lines with a false "recovered" each in 25 s, issue 39).
  const said = new Map<string, Set<string>>();
  const listener = (event: StatusEvent) => {
    if (event.type !== 'node') return;
    const node: NodeStatus = event.node;
    if (!FAILING.has(node.state)) {
      if (node.state === 'verified' && said.has(node.name)) log.info({ node: node.name, state: node.state }, 'node recovered');
      if (node.state === 'verified' || node.state === 'removed') said.delete(node.name);
      return;
    }
    const key = `${node.state}\0${node.lastError?.code ?? ''}\0${node.lastError?.message ?? ''}`;
    const troubles = said.get(node.name) ?? new Set<string>();
    said.set(node.name, troubles);
    if (troubles.has(key)) return;
    troubles.add(key);
    // Backoff is retried by itself (a gate still closed is one): said at info; unreachable and stalled wait for someone.
    const level = node.state === 'backoff' ? 'info' : 'error';
    log[level]({ node: node.name, state: node.state, code: node.lastError?.code, reason: node.lastError?.message }, `node ${node.state}`);
  };
  status.on('change', listener);
  return () => status.off('change', listener);
}
