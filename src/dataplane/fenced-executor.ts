// An executor whose every command first passes the fence (the coordination's `guard`): in cluster mode this member
// owns the node and its lease is fresh; alone, the node's snapshot is on disk before a command that depends on it.
// A fence that refuses throws: the command never left, and this is the one place that says so (errors.ts `sent`).
// Not a gate: a gate is a phase waiting for another node (reconciler/gates.ts).

import { errors, GroundcrewError, markSent } from '../errors.js';
import type { Command, CommandResult, Executor, RunOptions } from './executor.js';

/** Settles when a command may go out now; throws why not (a GroundcrewError, with its code) when it may not. */
export type FenceCheck = () => Promise<void>;

export class FencedExecutor implements Executor {
  constructor(
    private readonly inner: Executor,
    private readonly fence: FenceCheck,
  ) {}

  get os() {
    return this.inner.os;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    try {
      await this.fence();
    } catch (err) {
      const refusal =
        err instanceof GroundcrewError
          ? err
          : errors.GC_INTERNAL(
              `the fence before command${cmd.label ? ` (${cmd.label})` : ''} failed: ${(err as Error)?.message ?? err}`,
              err,
            );
      throw markSent(refusal, false);
    }
    return this.inner.run(cmd, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
