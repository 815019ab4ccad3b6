// How the simulated bash stops a script: exit, set -u on an unset variable, an arithmetic error, a construct
// outside the subset; and how return, break and continue unwind.

export class BashExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** An error bash prints and then ends `bash -c` with (an arithmetic error, set -u on an unset variable). */
export class BashFatal extends BashExit {
  constructor(
    readonly text: string,
    code: number,
  ) {
    super(code);
  }
}

/** set -u and an unset variable: bash prints the reason and ends the script. */
export class BashUnbound extends BashFatal {
  constructor(text: string) {
    super(text, 127);
  }
}

/** `return [n]` inside a function. */
export class BashReturn extends Error {
  constructor(readonly code: number) {
    super(`return ${code}`);
  }
}

/** `break [n]` / `continue [n]`: how many enclosing loops they leave. */
export class BashLoopControl extends Error {
  constructor(
    readonly kind: 'break' | 'continue',
    public levels: number,
  ) {
    super(kind);
  }
}

export class Unsupported extends Error {}
