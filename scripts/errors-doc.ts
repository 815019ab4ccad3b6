// docs/errors.md's table of codes, generated from the registry in src/errors.ts.
// `npm run docs:errors` rewrites the table in place; a unit test fails when the two differ.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_REGISTRY, type ErrorSpec } from '../src/errors.js';

export const ERRORS_DOC = join(import.meta.dirname, '..', 'docs', 'errors.md');
const BEGIN = '<!-- the table below is generated from src/errors.ts: npm run docs:errors -->';
const END = '<!-- end of the generated table -->';

export function renderErrorTable(): string {
  const rows = Object.entries(ERROR_REGISTRY).map(([code, spec]: [string, ErrorSpec]) => {
    const retried = spec.retryable ? ` (${spec.retried ?? 'retried'})` : '';
    return `| \`${code}\`${retried} | ${spec.meaning} | ${spec.todo} |`;
  });
  return [BEGIN, '', '| code | meaning | what to do |', '|---|---|---|', ...rows, '', END].join('\n');
}

/** The document with its table replaced by the registry's. */
export function withErrorTable(doc: string): string {
  const begin = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${ERRORS_DOC}: the markers of the generated table are missing`);
  return doc.slice(0, begin) + renderErrorTable() + doc.slice(end + END.length);
}

if (process.argv[1] === import.meta.filename) {
  writeFileSync(ERRORS_DOC, withErrorTable(readFileSync(ERRORS_DOC, 'utf8')));
}
