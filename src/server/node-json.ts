// A node's status as the API sends it, secrets redacted, serialized once per record: the status store replaces
// (and freezes) a node's record on every change, so the record itself keys the cache and nothing goes stale.
// The full /api/nodes at 10,000 nodes was a deep copy and a stringify of every node on every request.

import { redactSecrets } from '../inventory/secret.js';
import type { NodeStatus } from '../reconciler/status-store.js';

const serialized = new WeakMap<NodeStatus, string>();

export function nodeJson(node: NodeStatus): string {
  let json = serialized.get(node);
  if (json === undefined) {
    json = JSON.stringify(redactSecrets(node));
    serialized.set(node, json);
  }
  return json;
}

/** A JSON array of nodes, as fastify would have serialized the redacted list. */
export function nodesJson(nodes: readonly NodeStatus[]): string {
  return `[${nodes.map(nodeJson).join(',')}]`;
}
