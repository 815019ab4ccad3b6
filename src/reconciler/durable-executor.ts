// Every command to a node waits until the node's snapshot saved so far is on disk: the machine's state that a
// command depends on after a crash (the boot id recorded before a reboot, the reboot counted) is durable before
// the command goes out, as it was when saves were written on the event loop. A snapshot that could not be
// written stops the node's commands (GC_SNAPSHOT_WRITE, retried, marked never sent) until a later save lands.

import type { Executor } from '../dataplane/executor.js';
import { GatedExecutor } from '../dataplane/gated-executor.js';
import { errors } from '../errors.js';

export class DurableExecutor extends GatedExecutor {
  constructor(
    inner: Executor,
    node: string,
    /** Settles when the node's saves so far are durable; rejects with why when one could not be written. */
    flush: (node: string) => Promise<void>,
  ) {
    super(inner, () =>
      flush(node).catch((err: Error) => {
        throw errors.GC_SNAPSHOT_WRITE(`${node}: its state could not be saved (${err.message}); nothing sent until it is`, err);
      }),
    );
  }
}

/** A node's access with its commands behind the store's flush, when the store writes in the background. */
export function durable<A extends { exec: Executor }>(
  access: A,
  node: string,
  store: { flush?(node: string): Promise<void> } | undefined,
): A {
  const flush = store?.flush?.bind(store);
  return flush ? { ...access, exec: new DurableExecutor(access.exec, node, flush) } : access;
}
