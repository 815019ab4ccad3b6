// The one base error of groundcrew: a stable code, whether a retry can help, and the cause.

export interface GroundcrewErrorOptions {
  retryable?: boolean;
  cause?: unknown;
}

export class GroundcrewError extends Error {
  readonly code: string;
  readonly retryable: boolean;

  constructor(code: string, message: string, options: GroundcrewErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GroundcrewError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}

/** A folder's codes: what each means (docs/errors.md says the same) and whether a retry can help. */
export type CodeTable = Record<string, { retryable: boolean; meaning: string }>;

/** The error class of a folder: its codes decide `retryable`, so a call site names only the code. */
export function errorClass<T extends CodeTable>(name: string, codes: T) {
  return class extends GroundcrewError {
    constructor(code: keyof T & string, message: string, cause?: unknown) {
      super(code, message, { retryable: (codes[code] as T[keyof T]).retryable, cause });
      this.name = name;
    }
  };
}
