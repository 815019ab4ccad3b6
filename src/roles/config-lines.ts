// The last check before a config or env file is written on a node: each of its `KEY=value` lines must stay one
// line. The inventory refuses a control character in any value (validate, with file:line:col); this stands
// behind it, so a value that got past (a new source of values, a bug) fails the write in one line instead of
// adding lines of its own to the file (a second `Os_auth_url=`, an `LD_PRELOAD=`).

import { controlCharacter } from '../control-characters.js';
import { errors } from '../errors.js';

/** `lines` as given, or a GC_UNSAFE_VALUE error naming the file and the line's key (never its value: it may be a password). */
export function oneLineEach(file: string, lines: readonly string[]): string[] {
  for (const line of lines) {
    const found = controlCharacter(line);
    if (!found) continue;
    const key = line.includes('=') ? line.slice(0, line.indexOf('=')) : 'a line';
    throw errors.GC_UNSAFE_VALUE(`${file}: the value of ${JSON.stringify(key.slice(0, 64))} holds ${found}; the file is not written`);
  }
  return [...lines];
}
