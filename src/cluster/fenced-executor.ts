// Every command to a node passes the fence first: this member holds the node's owner key and renewed its
// lease less than TTL/2 ago. A paused or cut-off member that comes back finds the fence closed and sends nothing.

import type { Command, CommandResult, Executor, RunOptions } from '../dataplane/executor.js';

export class FencedExecutor implements Executor {
  constructor(
    private readonly inner: Executor,
    private readonly node: string,
    /** Throws GC_CLUSTER_FENCED when the command may not go out; waits for the node's state to be written first. */
    private readonly guard: (node: string) => Promise<void>,
  ) {}

  get os() {
    return this.inner.os;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    await this.guard(this.node);
    return this.inner.run(cmd, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
