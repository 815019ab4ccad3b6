// The nesting scan that runs before the YAML parser: deep documents are found, real ones are not.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_DEPTH, tooDeep } from '../../../src/inventory/yaml-limits.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

describe('tooDeep', () => {
  it('passes the example inventory and the deployer examples', () => {
    for (const file of ['inventory-repo-example/instances.yaml', 'test/fixtures/cad-examples/bms_win_full_example.yaml'])
      expect(tooDeep(readFileSync(join(ROOT, file), 'utf8')), file).toBeUndefined();
  });

  it('finds flow nesting, compact sequences and indentation past the limit, where it passes it', () => {
    expect(tooDeep(`x: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`)).toEqual({ line: 1, col: 3 + MAX_DEPTH });
    expect(tooDeep(`x:\n${'- '.repeat(200_000)}a\n`)).toMatchObject({ line: 2 });
    const indented = Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n');
    expect(tooDeep(indented)).toMatchObject({ line: MAX_DEPTH + 1, col: MAX_DEPTH + 1 });
  });

  it('does not count brackets in quotes, comments or block scalars', () => {
    const deep = '['.repeat(500);
    expect(tooDeep(`a: "${deep}"\nb: '${deep}'\nc: 1 # ${deep}\nd: |\n  ${deep}\n  - - - -\ne: x${deep}\n`)).toBeUndefined();
  });
});
