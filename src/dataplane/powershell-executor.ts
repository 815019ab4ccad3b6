// The PowerShell executor: a persistent local PowerShell (node-powershell), for groundcrew running on a
// Windows host. Scripts travel on the shell's standard input, never on a command line.

import { performance } from 'node:perf_hooks';
import { PowerShell } from 'node-powershell';
import { GroundcrewError } from '../errors.js';
import { cancelled, commandName, startDeadline } from './deadline.js';
import type { Command, CommandResult, Executor, RunOptions } from './executor.js';
import { psQuote } from './quote.js';
import { POWERSHELL_PRELUDE } from './wire.js';

export class PowerShellExecutor implements Executor {
  readonly os = 'windows' as const;
  #shell: PowerShell | undefined;

  #session(): PowerShell {
    this.#shell ??= new PowerShell({ debug: false });
    return this.#shell;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    const what = commandName('PowerShell ', cmd);
    if (opts.signal?.aborted) throw cancelled(what);
    // What SSH would send on stdin is handed over as $GcStdin; it is written to the shell's stdin like the rest.
    const stdin = opts.stdin === undefined ? '' : `$GcStdin = ${psQuote(opts.stdin)}\n`;
    const invocation = this.#session().invoke(`${POWERSHELL_PRELUDE}${stdin}${cmd.script}`);
    let expire: (error: GroundcrewError) => void = () => undefined;
    const expired = new Promise<never>((_, reject) => {
      expire = reject;
    });
    const deadline = startDeadline(opts, what, expire);
    try {
      const result = await Promise.race([invocation, expired]);
      return { exitCode: 0, stdout: result.raw, stderr: '', durationMs: performance.now() - started };
    } catch (err) {
      if (err instanceof GroundcrewError) {
        // Ending the session is the only way to stop what it runs; the next command starts a new one.
        await this.close();
        throw err;
      }
      // node-powershell fails an invocation that wrote to stderr: that is a failed command, exit 1.
      return { exitCode: 1, stdout: '', stderr: (err as Error).message, durationMs: performance.now() - started };
    } finally {
      deadline.clear();
    }
  }

  async close(): Promise<void> {
    const shell = this.#shell;
    this.#shell = undefined;
    await shell?.dispose().catch(() => undefined);
  }
}
