// How the simulated bash stops a script: exit, set -u on an unset variable, a construct outside the subset.

export class BashExit extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

/** set -u and an unset variable: bash prints the reason and exits 1. */
export class BashUnbound extends BashExit {
  constructor(readonly text: string) {
    super(127);
  }
}

export class Unsupported extends Error {}
