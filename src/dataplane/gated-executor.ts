// An executor whose every command first passes a gate: cluster mode's fence (this member owns the node and its
// lease is fresh), or the node's snapshot on disk before a command that depends on it. A gate that refuses
// throws: the command never left, and this is the one place that says so (errors.ts `sent`).

import { errors, GroundcrewError, markSent } from '../errors.js';
import type { Command, CommandResult, Executor, RunOptions } from './executor.js';

/** Settles when a command may go out now; throws why not (a GroundcrewError, with its code) when it may not. */
export type Gate = () => Promise<void>;

export class GatedExecutor implements Executor {
  constructor(
    private readonly inner: Executor,
    private readonly gate: Gate,
  ) {}

  get os() {
    return this.inner.os;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    try {
      await this.gate();
    } catch (err) {
      const refusal =
        err instanceof GroundcrewError
          ? err
          : errors.GC_INTERNAL(
              `the gate before command${cmd.label ? ` (${cmd.label})` : ''} failed: ${(err as Error)?.message ?? err}`,
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
