// Error codes of node access: see docs/errors.md. `retryable` says whether backing off and trying again can help.

import { errorClass } from '../errors.js';

export const DATAPLANE_CODES = {
  GC_SSH_CONNECT: { retryable: true, meaning: 'the node did not accept a TCP or SSH connection (down, rebooting, unreachable)' },
  GC_SSH_AUTH: { retryable: false, meaning: 'the node refused the credentials' },
  GC_SSH_HOSTKEY_MISMATCH: { retryable: false, meaning: 'the node presented a host key other than the one pinned on first use' },
  GC_CONNECTION_LOST: { retryable: true, meaning: 'the connection dropped while a command ran; its outcome is unknown' },
  GC_COMMAND_TIMEOUT: { retryable: true, meaning: 'a command ran past its time limit and was ended' },
  GC_COMMAND_ABORTED: { retryable: false, meaning: 'groundcrew cancelled the command (a newer revision, a shutdown)' },
  GC_COMMAND_TOO_LONG: { retryable: false, meaning: 'the script does not fit on a Windows command line' },
  GC_UNSAFE_VALUE: { retryable: false, meaning: 'a value cannot be quoted safely for the shell (it holds a NUL byte)' },
  GC_NATIVE_UNAVAILABLE: { retryable: false, meaning: 'a native library groundcrew uses is missing on this host' },
} as const;

export type DataplaneCode = keyof typeof DATAPLANE_CODES;

export class DataplaneError extends errorClass('DataplaneError', DATAPLANE_CODES) {}
