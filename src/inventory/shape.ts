// Shape-checks one parsed YAML file against its zod schema, reporting every problem with its place.

import type { z } from 'zod';
import type { Diagnostic } from './diagnostic.js';
import type { Path, YamlSource } from './yaml-source.js';
import { zodDiagnostics } from './zod-diagnostics.js';

/**
 * Parses `data` with `schema`. On failure every issue is reported, and the top-level keys that
 * carried one are dropped so the rest of the file can still be checked (every error, not the first).
 */
export function checkShape<S extends z.ZodType>(
  src: YamlSource,
  schema: S,
  data: Record<string, unknown>,
  knownKeys: (path: Path) => readonly string[],
  diags: Diagnostic[],
  base: Path = [],
): z.infer<S> | undefined {
  const first = schema.safeParse(data);
  if (first.success) return first.data;
  diags.push(...zodDiagnostics(src, first.error, knownKeys, base));
  const broken = new Set(first.error.issues.map((issue) => issue.path[0]).filter((k) => k !== undefined));
  if (first.error.issues.some((issue) => issue.code === 'unrecognized_keys' && issue.path.length === 0)) {
    for (const issue of first.error.issues) if (issue.code === 'unrecognized_keys') for (const k of issue.keys) broken.add(k);
  }
  const rest = Object.fromEntries(Object.entries(data).filter(([k]) => !broken.has(k)));
  const second = schema.safeParse(rest);
  return second.success ? second.data : undefined;
}

export function isPlainMap(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The file's root as a map, or a diagnostic saying what was found instead. Empty files give `{}` when allowed. */
export function rootMap(
  src: YamlSource,
  diags: Diagnostic[],
  emptyMeans: 'empty' | 'error',
  expected: string,
): Record<string, unknown> | undefined {
  const root = src.toJS();
  if (root === null || root === undefined) {
    if (emptyMeans === 'empty') return {};
    diags.push({ file: src.file, line: 1, col: 1, severity: 'error', message: `${src.file} is empty: expected ${expected}` });
    return undefined;
  }
  if (!isPlainMap(root)) {
    diags.push(src.diagnostic([], 'error', `expected ${expected} at the top of ${src.file}, found ${src.describe([])}`));
    return undefined;
  }
  return root;
}
