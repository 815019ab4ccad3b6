// Errors as the simulated PowerShell raises them: message, error id and category like the real ones.

export class PsError extends Error {
  constructor(
    message: string,
    readonly errorId: string,
    readonly category: string,
    /** The cmdlet that raised it, shown first on the error's line as PowerShell does. */
    readonly source?: string,
  ) {
    super(message);
  }
}

/** A statement-terminating error (a binding failure, a command not found): the script goes on. */
export class PsTerminatingError extends PsError {}

/** A script-terminating error (`throw`, -ErrorAction Stop, a construct the simulator does not know). */
export class PsScriptError extends PsTerminatingError {}

/** `exit N`: not an error, it unwinds to the host with an exit code. */
export class PsExit extends Error {
  /** Output written before the exit, carried up to the host. */
  partial: unknown[] = [];

  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

export function notRecognized(name: string): PsTerminatingError {
  return new PsTerminatingError(
    `The term '${name}' is not recognized as the name of a cmdlet, function, script file, or operable program. Check the spelling of the name, or if a path was included, verify that the path is correct and try again.`,
    'CommandNotFoundException',
    'ObjectNotFound',
    name,
  );
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
