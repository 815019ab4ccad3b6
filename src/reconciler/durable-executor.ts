// Every command to a node waits until the node's snapshot saved so far is on disk: the machine's state that a
// command depends on after a crash (the boot id recorded before a reboot, the reboot counted) is durable before
// the command goes out, as it was when saves were written on the event loop. A snapshot that could not be
// written stops the node's commands (GC_SNAPSHOT_WRITE, retried) until a later save lands.

import type { Command, CommandResult, Executor, RunOptions } from '../dataplane/executor.js';
import { errors } from '../errors.js';

export class DurableExecutor implements Executor {
  constructor(
    private readonly inner: Executor,
    private readonly node: string,
    /** Settles when the node's saves so far are durable; rejects with why when one could not be written. */
    private readonly flush: (node: string) => Promise<void>,
  ) {}

  get os() {
    return this.inner.os;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    await this.flush(this.node).catch((err: Error) => {
      throw errors.GC_SNAPSHOT_WRITE(`${this.node}: its state could not be saved (${err.message}); nothing sent until it is`, err);
    });
    return this.inner.run(cmd, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
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
