// Error codes of the reconciler: see docs/errors.md.

import { errorClass } from '../errors.js';

export const RECONCILER_CODES = {
  GC_GATE_CLOSED: { retryable: true, meaning: 'a phase waits for another node (the Keystone host) to be verified' },
  GC_GATE_FAILED: { retryable: false, meaning: 'a phase waits for another node (the Keystone host), which is stalled' },
  GC_DECONFIGURE_FAILED: { retryable: false, meaning: "removing groundcrew's components from a node taken out of the inventory failed" },
} as const;

export type ReconcilerCode = keyof typeof RECONCILER_CODES;

export class ReconcilerError extends errorClass('ReconcilerError', RECONCILER_CODES) {}
