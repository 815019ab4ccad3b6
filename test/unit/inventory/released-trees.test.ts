// The parse memo keeps a revision's files between commits but lets go of their syntax trees (about 3 KB a node
// of a big instances.yaml): a commit that changes one node file must then not parse instances.yaml again (a
// 10,000-node file takes hundreds of milliseconds), and every result must still equal a cold parse's.

import { beforeEach, describe, expect, it, vi } from 'vitest';
import type * as yaml from 'yaml';
import { bigInventory } from '../../../bench/inventory-parse.js';
import { parseInventory } from '../../../src/inventory/parse-inventory.js';
import { ParseMemo } from '../../../src/inventory/parse-memo.js';

const parsed: string[] = [];
vi.mock('yaml', async (original) => {
  const real = await original<typeof yaml>();
  return {
    ...real,
    parseDocument: (text: string, ...rest: unknown[]) => {
      parsed.push(text);
      return (real.parseDocument as (...a: unknown[]) => unknown)(text, ...rest);
    },
  };
});

const instances = bigInventory(40);
const files = (nodeFile?: string) => ({
  instances: { path: 'instances.yaml', text: instances },
  nodeFiles: nodeFile === undefined ? [] : [{ path: 'nodes/node-1.yaml', text: nodeFile }],
  repoFile: { path: 'groundcrew.yaml', text: 'rollout:\n  maxUnavailable: "100%"\n' },
});
const parsesOfInstances = () => parsed.filter((t) => t === instances).length;

beforeEach(() => {
  parsed.length = 0;
});

describe('the parse memo between revisions', () => {
  it('re-derives a node whose node file changed without parsing instances.yaml again', () => {
    const memo = new ParseMemo();
    const first = parseInventory(files(), memo);
    expect(first.ok).toBe(true);
    expect(parsesOfInstances()).toBe(1);
    for (const version of ['2011', '2012', '2013']) {
      const warm = parseInventory(files(`versions:\n  contrail: "${version}"\n`), memo);
      const cold = parseInventory(files(`versions:\n  contrail: "${version}"\n`));
      expect(warm).toEqual(cold);
      if (!warm.ok) throw new Error('expected a valid inventory');
      expect(warm.state.nodes.find((n) => n.name === 'node-1')?.versions.contrail).toMatchObject({ version });
    }
    // One parse for the memo's first revision, one for each cold parse; none for the warm ones.
    expect(parsesOfInstances()).toBe(1 + 3);
  });

  it('gives a problem found after the release its file, line and column (the tree is parsed again)', () => {
    const memo = new ParseMemo();
    expect(parseInventory(files(), memo).ok).toBe(true);
    const bad = parseInventory(files('versions:\n  contrail: [1, 2]\n'), memo);
    const cold = parseInventory(files('versions:\n  contrail: [1, 2]\n'));
    expect(bad.ok).toBe(false);
    expect(bad).toEqual(cold);
  });
});
