// Every error code groundcrew can raise is in the operator's table (docs/errors.md), and no table row is stale.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('docs/errors.md', () => {
  it('lists exactly the GC_ codes the source defines', () => {
    // A code is a key of a *_CODES registry or a quoted string literal of its own ('GC_INVENTORY_INVALID').
    const found = (text: string) => [...text.matchAll(/^\s+(GC_[A-Z_]+):|['"`](GC_[A-Z_]+)['"`]/gm)].map((m) => m[1] ?? m[2] ?? '');
    const code = new Set(sources(join(ROOT, 'src')).flatMap((f) => found(readFileSync(f, 'utf8'))));
    const documented = new Set(
      readFileSync(join(ROOT, 'docs', 'errors.md'), 'utf8')
        .match(/`(GC_[A-Z_]+)`/g)
        ?.map((c) => c.slice(1, -1)),
    );
    expect([...code].filter((c) => !documented.has(c)).sort()).toEqual([]);
    expect([...documented].filter((c) => !code.has(c)).sort()).toEqual([]);
  });
});
