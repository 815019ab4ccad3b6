// A node's trouble in the daemon's log, once per change: it became unreachable, went to backoff or stalled, or its
// error changed (a connection refused, then an authentication failure). Not on every retry, and not only once a
// rollout halts (issue 29: a node that could not be reached said nothing in the log until then).

import type { Logger } from 'pino';
import { FAILING } from '../node-state.js';
import type { NodeStatus, StatusEvent } from '../reconciler/status-store.js';

/** Logs each node's trouble as it changes; the function returned stops listening. */
export function logNodeProblems(
  status: { on(event: 'change', l: (e: StatusEvent) => void): unknown; off(event: 'change', l: (e: StatusEvent) => void): unknown },
  log: Logger,
): () => void {
  const last = new Map<string, string>();
  const listener = (event: StatusEvent) => {
    if (event.type !== 'node') return;
    const node: NodeStatus = event.node;
    const key = FAILING.has(node.state) ? `${node.state}\0${node.lastError?.code ?? ''}\0${node.lastError?.message ?? ''}` : '';
    if ((last.get(node.name) ?? '') === key) return;
    if (key === '') {
      if (last.has(node.name)) log.info({ node: node.name, state: node.state }, 'node recovered');
      last.delete(node.name);
      return;
    }
    last.set(node.name, key);
    // Backoff is retried by itself (a gate still closed is one): said at info; unreachable and stalled wait for someone.
    const level = node.state === 'backoff' ? 'info' : 'error';
    log[level]({ node: node.name, state: node.state, code: node.lastError?.code, reason: node.lastError?.message }, `node ${node.state}`);
  };
  status.on('change', listener);
  return () => status.off('change', listener);
}
