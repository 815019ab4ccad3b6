// The PowerShell executor: a persistent local PowerShell (node-powershell), for groundcrew running on a
// Windows host. Scripts travel on the shell's standard input, never on a command line.

import { performance } from 'node:perf_hooks';
import { PowerShell, ProcessError } from 'node-powershell';
import { errors, GroundcrewError, markSent } from '../errors.js';
import { cancelled, commandName, startDeadline } from './deadline.js';
import type { Command, CommandResult, Executor, RunOptions } from './executor.js';
import { psQuote } from './quote.js';
import { POWERSHELL_PRELUDE } from './wire.js';

/** The shell process never started (spawn failed): what was written to its standard input went nowhere. */
function neverStarted(err: ProcessError): boolean {
  const cause = err.originalError as NodeJS.ErrnoException | undefined;
  return typeof cause?.syscall === 'string' && cause.syscall.startsWith('spawn');
}

export class PowerShellExecutor implements Executor {
  readonly os = 'windows' as const;
  #shell: PowerShell | undefined;

  #session(): PowerShell {
    // A shell that exited since its last command (killed, crashed) takes no more: start a new one.
    if ((this.#shell as unknown as { isExited?: boolean } | undefined)?.isExited) this.#shell = undefined;
    this.#shell ??= new PowerShell({ debug: false });
    return this.#shell;
  }

  async run(cmd: Command, opts: RunOptions): Promise<CommandResult> {
    const started = performance.now();
    const what = commandName('PowerShell ', cmd);
    if (opts.signal?.aborted) throw cancelled(what, false);
    // What SSH would send on stdin is handed over as $GcStdin; it is written to the shell's stdin like the rest.
    const stdin = opts.stdin === undefined ? '' : `$GcStdin = ${psQuote(opts.stdin)}\n`;
    const invocation = this.#session().invoke(`${POWERSHELL_PRELUDE}${stdin}${cmd.script}`);
    let expire: (error: GroundcrewError) => void = () => undefined;
    const expired = new Promise<never>((_, reject) => {
      expire = reject;
    });
    // Once invoked, the script is on the shell's standard input: a timeout or cancel leaves its outcome unknown.
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
      if (err instanceof ProcessError) {
        // The shell is gone: it could not start (nothing ran), or it ended while the script ran (outcome unknown).
        await this.close();
        const sent = !neverStarted(err);
        const lost = sent
          ? errors.GC_CONNECTION_LOST(`${what}: the PowerShell session ended while it ran; its outcome is unknown`, err)
          : errors.GC_CONNECTION_LOST(`${what}: PowerShell could not start (${err.originalError?.message}); nothing ran`, err);
        throw markSent(lost, sent);
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
