// A command's time limit and its caller's cancel, written once for every executor: whichever comes first
// ends the command, and the caller sees GC_COMMAND_TIMEOUT or GC_COMMAND_ABORTED, marked with whether the
// command had left for the node (errors.ts `sent`).

import { errors, type GroundcrewError, markSent } from '../errors.js';
import type { Command, RunOptions } from './executor.js';

/** How messages name a command: `local command (label)`, `10.0.0.5:22: command (label)`. */
export function commandName(prefix: string, cmd: Command): string {
  return `${prefix}command${cmd.label ? ` (${cmd.label})` : ''}`;
}

/** A command cancelled by its caller; `sent`: whether it had left for the node by then. */
export function cancelled(what: string, sent: boolean): GroundcrewError {
  return markSent(errors.GC_COMMAND_ABORTED(`${what} was cancelled`), sent);
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
 * cancelled caller never starts a command (marked not sent). `sent` tells, when the deadline ends the command,
 * whether it had left for the node by then: the executor knows (by default it had, or may have).
 */
export function startDeadline(
  opts: Pick<RunOptions, 'signal' | 'timeoutMs'>,
  what: string,
  cancel: (error: GroundcrewError) => void,
  sent: () => boolean = () => true,
): Deadline {
  if (opts.signal?.aborted) throw cancelled(what, false);
  let error: GroundcrewError | undefined;
  const end = (reason: GroundcrewError) => {
    if (error) return;
    error = markSent(reason, sent());
    clear();
    cancel(reason);
  };
  const timer = setTimeout(() => end(errors.GC_COMMAND_TIMEOUT(`${what} ran past ${opts.timeoutMs} ms and was ended`)), opts.timeoutMs);
  const onAbort = () => end(cancelled(what, true));
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
