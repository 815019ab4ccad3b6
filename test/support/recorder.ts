// An executor wrapper that keeps every script sent: to check them (grammar, secrets) after a run.

import type { Command, CommandResult, Executor, RunOptions } from '../../src/dataplane/executor.js';

export class Recorder implements Executor {
  readonly scripts: string[] = [];

  constructor(readonly inner: Executor) {}

  get os() {
    return this.inner.os;
  }

  run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    this.scripts.push(cmd.script);
    return this.inner.run(cmd, opts);
  }

  close() {
    return this.inner.close();
  }
}
