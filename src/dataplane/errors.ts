// Node access errors: codes from the registry in src/errors.ts.

import { type ErrorCode, GroundcrewError } from '../errors.js';

export class DataplaneError extends GroundcrewError {
  constructor(code: ErrorCode, message: string, cause?: unknown) {
    super(code, message, cause);
  }
}
