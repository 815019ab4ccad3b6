// An Executor whose commands run in real pwsh (test/support/real-pwsh-host.ts) against a simulated Windows host,
// each as groundcrew sends it (the wire's prelude, then the script). A reboot the script asks for is taken at
// once (host.reboot(), counted): a phase applied through it sees the host as it is after the reboot, as the lab's
// node machine does after its wait.

import type { Command, CommandResult, Executor, RunOptions } from '../../src/dataplane/executor.js';
import { POWERSHELL_PRELUDE } from '../../src/dataplane/wire.js';
import type { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { runInRealPwsh } from './real-pwsh-host.js';

export class RealPwshExecutor implements Executor {
  readonly os = 'windows' as const;
  readonly reboots: string[] = [];

  constructor(readonly host: WindowsHost) {}

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    const r = await runInRealPwsh(this.host, POWERSHELL_PRELUDE + cmd.script, {
      ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }),
      timeoutMs: Math.max(opts.timeoutMs, 120_000),
    });
    if (r.rebootRequested) {
      this.host.rebootRequested = false;
      this.reboots.push(cmd.label ?? cmd.script.split('\n')[0] ?? '');
      this.host.reboot();
    }
    return { exitCode: r.exitCode, stdout: r.stdout, stderr: r.stderr, durationMs: performance.now() - started };
  }

  async close(): Promise<void> {}
}
