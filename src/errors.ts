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
