// Turns zod's issues into file:line:col diagnostics worded for an operator, not a programmer.

import type { z } from 'zod';
import type { Diagnostic } from './diagnostic.js';
import { didYouMean } from './did-you-mean.js';
import type { Path, YamlSource } from './yaml-source.js';

const EXPECTED: Record<string, string> = {
  object: 'a map',
  record: 'a map',
  array: 'a list',
  string: 'a text value',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  null: 'nothing',
};

export function where(path: Path): string {
  return path.length === 0 ? 'the file' : path.join('.');
}

/** `knownKeys(path)` names the keys allowed in the map at `path`, for "did you mean" hints. */
export function zodDiagnostics(
  src: YamlSource,
  error: z.ZodError,
  knownKeys: (path: Path) => readonly string[],
  base: Path = [],
): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const issue of error.issues) {
    const relative = issue.path as Path;
    const path = [...base, ...relative];
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) {
          const hint = didYouMean(key, knownKeys(relative));
          out.push(src.diagnostic([...path, key], 'error', `unknown key "${key}" in ${where(path)}${hint}`, 'key'));
        }
        break;
      case 'invalid_type': {
        const expected = EXPECTED[issue.expected] ?? issue.expected;
        const present = src.locate(path).value !== undefined || src.locate(path.slice(0, -1)).value === undefined;
        const last = path[path.length - 1];
        const message = present
          ? `${where(path)}: expected ${expected}, found ${src.describe(path)}`
          : `${where(path.slice(0, -1))}: missing required key "${String(last)}" (${expected})`;
        out.push(src.diagnostic(path, 'error', message));
        break;
      }
      case 'invalid_union':
        out.push(
          src.diagnostic(
            path,
            'error',
            `${where(path)}: expected a single value (text, number or true/false), found ${src.describe(path)}`,
          ),
        );
        break;
      case 'invalid_value': {
        const given = src.scalarText(path) ?? '';
        const allowed = issue.values.map(String);
        out.push(
          src.diagnostic(path, 'error', `${where(path)}: "${given}" is not one of ${allowed.join(', ')}${didYouMean(given, allowed)}`),
        );
        break;
      }
      default:
        out.push(src.diagnostic(path, 'error', `${where(path)}: ${issue.message}`));
    }
  }
  return out;
}
