// The nodes a query selects: filters, sort by any column either way, keyset pages that stay put when a
// node before the cursor changes state.

import { describe, expect, it } from 'vitest';
import type { NodeStatus } from '../../../src/reconciler/status-store.js';
import { type NodeQuery, parseNodeQuery, queryNodes, queryString } from '../../../src/server/node-query.js';

const node = (name: string, over: Partial<NodeStatus> = {}): NodeStatus => ({
  name,
  address: '10.0.0.1',
  os: 'linux',
  roles: ['vrouter'],
  state: 'verified',
  phases: [],
  mode: 'autocorrect',
  desiredVersions: {},
  observedVersions: {},
  conditions: [],
  rebootCount: 0,
  drift: false,
  since: '2026-11-23T10:00:00.000Z',
  updatedAt: '2026-11-23T10:00:00.000Z',
  ...over,
});

const NODES = [
  node('w1', {
    os: 'windows',
    roles: ['vrouter', 'win_cnm_plugin'],
    state: 'stalled',
    labels: { rack: 'r1' },
    lastAppliedRevision: 'abc123',
  }),
  node('w2', { os: 'windows', state: 'converging', labels: { rack: 'r2' }, since: '2026-11-23T11:00:00.000Z' }),
  node('l1', { mode: 'monitor', lastAppliedRevision: 'def456', labels: { rack: 'r1', gpu: '' } }),
  node('l2', { state: 'stalled', lastAppliedRevision: 'abc123' }),
];

const q = (raw: Record<string, string>) => {
  const parsed = parseNodeQuery(raw);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed.query;
};
const names = (query: NodeQuery) => {
  const page = queryNodes(NODES, query);
  if ('error' in page) throw new Error(page.error);
  return page.nodes.map((n) => n.name);
};

describe('node queries', () => {
  it('filters by state (several), OS, role, label, revision prefix, mode and name', () => {
    expect(names(q({ state: 'stalled' }))).toEqual(['l2', 'w1']);
    expect(names(q({ state: 'stalled,converging', os: 'windows' }))).toEqual(['w1', 'w2']);
    expect(names(q({ role: 'win_cnm_plugin' }))).toEqual(['w1']);
    expect(names(q({ label: 'rack=r1' }))).toEqual(['l1', 'w1']);
    expect(names(q({ label: 'gpu' }))).toEqual(['l1']);
    expect(names(q({ revision: 'abc' }))).toEqual(['l2', 'w1']);
    expect(names(q({ revision: 'none' }))).toEqual(['w2']);
    expect(names(q({ mode: 'monitor' }))).toEqual(['l1']);
    expect(names(q({ q: 'W' }))).toEqual(['w1', 'w2']);
  });

  it('sorts by any column, a leading - descending, the name breaking ties', () => {
    expect(names(q({ sort: 'state' }))).toEqual(['w2', 'l2', 'w1', 'l1']);
    expect(names(q({ sort: '-name' }))).toEqual(['w2', 'w1', 'l2', 'l1']);
    expect(names(q({ sort: '-since' }))).toEqual(['w2', 'l1', 'l2', 'w1']);
    expect(parseNodeQuery({ sort: 'colour' })).toMatchObject({ error: expect.stringContaining('sort must be one of') });
    expect(parseNodeQuery({ limit: '0' })).toMatchObject({ error: expect.stringContaining('limit') });
  });

  it('pages by keyset: the next page starts after the last row shown, whatever changed before it', () => {
    const first = queryNodes(NODES, q({ limit: '2' }));
    if ('error' in first) throw new Error(first.error);
    expect(first.nodes.map((n) => n.name)).toEqual(['l1', 'l2']);
    expect(first.total).toBe(4);
    const changed = NODES.filter((n) => n.name !== 'l1');
    const second = queryNodes(changed, q({ limit: '2', cursor: first.next as string }));
    if ('error' in second) throw new Error(second.error);
    expect(second.nodes.map((n) => n.name)).toEqual(['w1', 'w2']);
    expect(second.next).toBeUndefined();
    expect(queryNodes(NODES, q({ cursor: 'not-ours' }))).toMatchObject({ error: expect.stringContaining('cursor') });
  });

  it('writes the query back as URL parameters, changing only what it is told', () => {
    const query = q({ state: 'stalled', os: 'windows', sort: '-since' });
    expect(queryString(query)).toBe('?state=stalled&os=windows&sort=-since');
    expect(queryString(query, { state: undefined, cursor: 'X' })).toBe('?os=windows&sort=-since&cursor=X');
  });
});
