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

  it("is not fooled into under-counting: CR line ends, an unclosed quote or bracket in text, a block scalar's edge", () => {
    const indented = (eol: string) => Array.from({ length: 150 }, (_, i) => `${' '.repeat(i)}k${i}:`).join(eol);
    expect(tooDeep(indented('\r'))).toMatchObject({ line: MAX_DEPTH + 1 });
    // A quote YAML reads as plain text, then brackets: counted.
    expect(tooDeep(`a: b 'c [${'['.repeat(200)}\n`)).toBeDefined();
    // A quote that never closes ends with its line.
    expect(tooDeep(`a: "open\n${indented('\n')}`)).toBeDefined();
    // Text in a block scalar, then structure that YAML reads (and the scan must too).
    expect(tooDeep(`a: |\n  [\n  'x\n${indented('\n')}`)).toBeDefined();
    // \`- - |\`: the scalar's content lies right of the inner entry; a line left of it is structure.
    expect(tooDeep(`- - |\n   x\n ${'['.repeat(200)}\n`)).toBeDefined();
  });
});
