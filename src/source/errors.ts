// Error codes of the sources (Git, local path, webhooks): see docs/errors.md.

import { errorClass } from '../errors.js';

export const SOURCE_CODES = {
  GC_GIT_FETCH: { retryable: true, meaning: 'the Git remote could not be cloned or fetched' },
  GC_REVISION_REJECTED: { retryable: false, meaning: 'a commit failed validation; the last good revision stays in force' },
} as const;

export type SourceCode = keyof typeof SOURCE_CODES;

export class SourceError extends errorClass('SourceError', SOURCE_CODES) {}
