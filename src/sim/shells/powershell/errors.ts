// Errors as the simulated PowerShell raises them: message, error id, category and .NET exception type like
// the real ones, and the one error no script can catch: a construct the simulator does not model.

import { exceptionTypeOf } from './exception-types.js';

export class PsError extends Error {
  /** The .NET exception's full name, which `catch [T]` matches; undefined when the simulator does not know it. */
  readonly exceptionType: string | undefined;
  /** Output written before the error, carried up to whoever handles it. */
  partial: unknown[] = [];
  /** The ErrorRecord's TargetObject where the simulator knows it (what `throw` threw); unknown: reading it is refused. */
  targetObject: unknown = undefined;

  constructor(
    message: string,
    readonly errorId: string,
    readonly category: string,
    /** The cmdlet that raised it, shown first on the error's line as PowerShell does. */
    readonly source?: string,
    exceptionType?: string,
  ) {
    super(message);
    this.exceptionType = exceptionType ?? exceptionTypeOf(errorId, category);
  }
}

/** A statement-terminating error (a binding failure, a command not found): the script goes on. */
export class PsTerminatingError extends PsError {}

/** A script-terminating error (`throw`, -ErrorAction Stop). */
export class PsScriptError extends PsTerminatingError {}

/**
 * What the simulator does not model: a syntax node, an operator, a command, a .NET member or type. Real
 * PowerShell would do something here that the simulator cannot know, so no `catch`, `-ErrorAction` or `2>$null`
 * may turn it into a value: it ends the script, exit 1, with the construct named on stderr.
 */
export class PsUnmodelled extends PsScriptError {
  constructor(message: string, source?: string) {
    super(message, 'NotSupportedBySimulator', 'NotImplemented', source, 'groundcrew.sim.NotModelled');
  }
}

/** The error id a cmdlet gives `ctx.error` for what the simulator does not model; it becomes a PsUnmodelled. */
export const NOT_MODELLED_ID = 'NotSupportedBySimulator';

/** `exit N`: not an error, it unwinds to the host with an exit code. */
export class PsExit extends Error {
  /** Output written before the exit, carried up to the host. */
  partial: unknown[] = [];

  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** The message PowerShell 5.1 gives for a name that is no cmdlet, function, script or program. */
export function notRecognizedMessage(name: string): string {
  return `The term '${name}' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.`;
}

/** A command that does not exist on this host (a module not installed): a real, catchable error. */
export function notRecognized(name: string): PsTerminatingError {
  return new PsTerminatingError(
    notRecognizedMessage(name),
    'CommandNotFoundException',
    `ObjectNotFound: (${name}:String) [], CommandNotFoundException`,
    name,
  );
}

/** A command the simulator has never heard of: the real message, and no script may catch it. */
export function notModelledCommand(name: string): PsUnmodelled {
  return new PsUnmodelled(`${notRecognizedMessage(name)} (groundcrew sim: '${name}' is not modelled, docs/simulator.md)`, name);
}

export function formatError(err: PsError, line: number, col: number, lineText: string): string {
  const prefix = err.source ? `${err.source} : ` : '';
  return [
    `${prefix}${err.message}`,
    `At line:${line} char:${col}`,
    `+ ${lineText}`,
    `    + CategoryInfo          : ${err.category}`,
    `    + FullyQualifiedErrorId : ${err.errorId}`,
    '',
  ].join('\r\n');
}
