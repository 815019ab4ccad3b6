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

/**
 * A JSON array of nodes, as fastify would have serialized the redacted list, in pieces of about `chunkBytes`, for a response written as it is read: the whole list at
 * 10,000 nodes is 6.6 MiB, and held whole (the string, then its bytes) by each request at once it was the
 * daemon's memory peak after a converge (issue 18: 665 MiB against 513 while converging).
 */
export function* nodesJsonChunks(nodes: readonly NodeStatus[], chunkBytes = 64 * 1024): Generator<string> {
  let piece = '[';
  for (let i = 0; i < nodes.length; i++) {
    piece += (i === 0 ? '' : ',') + nodeJson(nodes[i] as NodeStatus);
    if (piece.length >= chunkBytes) {
      yield piece;
      piece = '';
    }
  }
  yield `${piece}]`;
}
