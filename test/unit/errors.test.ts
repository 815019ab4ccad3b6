// The error registry is the one place codes live: docs/errors.md's table is the registry's, no source file
// writes a code as a string, and no code in the registry is stale.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderErrorTable, withErrorTable } from '../../scripts/errors-doc.js';
import { ERROR_REGISTRY, errors, GroundcrewError } from '../../src/errors.js';

const ROOT = join(import.meta.dirname, '..', '..');
const REGISTRY = join(ROOT, 'src', 'errors.ts');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const others = () => sources(join(ROOT, 'src')).filter((f) => f !== REGISTRY);

describe('the error registry', () => {
  it('is what docs/errors.md shows (npm run docs:errors regenerates it)', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8');
    expect(doc).toContain(renderErrorTable());
    expect(withErrorTable(doc)).toBe(doc);
  });

  it('holds every code: no file outside src/errors.ts writes one as a string', () => {
    const found = others().flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/(['"`])(GC_[A-Z_]+)\1/g)].map((m) => `${relative(ROOT, f)}: ${m[2]}`),
    );
    expect(found).toEqual([]);
  });

  it('has no stale code: each is raised somewhere in src', () => {
    const text = others()
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    const unused = Object.keys(ERROR_REGISTRY).filter((code) => !text.includes(`errors.${code}`));
    expect(unused).toEqual([]);
  });

  it('gives each raised error its code and the registry retryable flag', () => {
    const e = errors.GC_CONNECT('cannot connect', new Error('ECONNREFUSED'));
    expect(e).toBeInstanceOf(GroundcrewError);
    expect(e).toMatchObject({ code: 'GC_CONNECT', retryable: true, message: 'cannot connect' });
    expect((e.cause as Error).message).toBe('ECONNREFUSED');
    expect(errors.GC_SET_FAILED('x').retryable).toBe(false);
    expect(errors.GC_SET_FAILED.code).toBe('GC_SET_FAILED');
  });
});
