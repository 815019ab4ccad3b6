// The only way a value reaches a command: one quoting function per shell.

import { errors } from '../errors.js';

function refuseNul(value: string, shell: string): void {
  if (value.includes('\0')) throw errors.GC_UNSAFE_VALUE(`a value for ${shell} holds a NUL byte, which no ${shell} string can carry`);
}

/** A bash word that is exactly `value`: single quotes, with each ' written as '\''. */
export function bashQuote(value: string): string {
  refuseNul(value, 'bash');
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * A PowerShell verbatim string that is exactly `value`. PowerShell also ends a single-quoted string at
 * the typographic quotes U+2018..U+201B, so those are doubled too (doubling any of them yields one).
 */
export function psQuote(value: string): string {
  refuseNul(value, 'PowerShell');
  return `'${value.replace(/['\u2018\u2019\u201A\u201B]/g, (q) => q + q)}'`;
}
