// A command's time limit and its caller's cancel, written once for every executor: whichever comes first
// ends the command, and the caller sees GC_COMMAND_TIMEOUT or GC_COMMAND_ABORTED.

import { errors, type GroundcrewError } from '../errors.js';
import type { Command, RunOptions } from './executor.js';

/** How messages name a command: `local command (label)`, `10.0.0.5:22: command (label)`. */
export function commandName(prefix: string, cmd: Command): string {
  return `${prefix}command${cmd.label ? ` (${cmd.label})` : ''}`;
}

export function cancelled(what: string): GroundcrewError {
  return errors.GC_COMMAND_ABORTED(`${what} was cancelled`);
}

export interface Deadline {
  /** Why the command was ended; undefined while it may still run. */
  readonly error: GroundcrewError | undefined;
  /** Stops the timer and the abort listener: call it however the command ended. */
  clear(): void;
}

/**
 * Watches a command from now: after `timeoutMs`, or when `signal` aborts, `cancel` gets the error the caller
 * is to see (once) and stops the work. A signal that has already aborted throws that error at once, so a
 * cancelled caller never starts a command.
 */
export function startDeadline(
  opts: Pick<RunOptions, 'signal' | 'timeoutMs'>,
  what: string,
  cancel: (error: GroundcrewError) => void,
): Deadline {
  if (opts.signal?.aborted) throw cancelled(what);
  let error: GroundcrewError | undefined;
  const end = (reason: GroundcrewError) => {
    if (error) return;
    error = reason;
    clear();
    cancel(reason);
  };
  const timer = setTimeout(() => end(errors.GC_COMMAND_TIMEOUT(`${what} ran past ${opts.timeoutMs} ms and was ended`)), opts.timeoutMs);
  const onAbort = () => end(cancelled(what));
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  function clear(): void {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
  return {
    get error() {
      return error;
    },
    clear,
  };
}
