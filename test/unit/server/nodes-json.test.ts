// /api/nodes serializes each node record once (node-json.ts): what it sends must still be redacted, must follow
// every change of a node, and must equal the JSON of the records themselves, full list and pages alike.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../../src/inventory/secret.js';
import { type NodeStatus, StatusStore } from '../../../src/reconciler/status-store.js';
import { nodesJsonChunks } from '../../../src/server/node-json.js';
import { listenOnLoopback, statusServer } from '../../support/status-server.js';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
const status = new StatusStore();
const server = statusServer(status);
let url = '';
const nodes = async (query = '') => {
  const res = await fetch(`${url}/api/nodes${query}`);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return (await res.json()) as NodeStatus[];
};

beforeAll(async () => {
  for (const name of ['c', 'a', 'b']) status.update(name, { name, state: 'verified' });
  url = await listenOnLoopback(server);
});
afterAll(() => server.close());

describe('/api/nodes from serialized records', () => {
  it('lists every node by name, each as its record', async () => {
    const all = await nodes();
    expect(all.map((n) => n.name)).toEqual(['a', 'b', 'c']);
    expect(all).toEqual(JSON.parse(JSON.stringify(status.list())));
  });

  it('follows a change of a node already sent, and a node added or forgotten', async () => {
    await nodes();
    status.update('b', { name: 'b', state: 'stalled', lastError: { code: 'GC_SET_FAILED', message: KEY } });
    status.update('aa', { name: 'aa', state: 'pending' });
    status.forget('c');
    const all = await nodes();
    expect(all.map((n) => [n.name, n.state])).toEqual([
      ['a', 'verified'],
      ['aa', 'pending'],
      ['b', 'stalled'],
    ]);
    // Redacted, full list and page alike: the private key never leaves the daemon.
    expect(all.find((n) => n.name === 'b')?.lastError?.message).toBe(REDACTED);
    const page = await nodes('?state=stalled');
    expect(page.map((n) => n.lastError?.message)).toEqual([REDACTED]);
    expect(JSON.stringify(await nodes())).not.toContain('PRIVATE KEY');
  });

  it('keeps stored records unchanged: a change is a new record', () => {
    const before = status.get('a') as NodeStatus;
    expect(() => {
      (before as { state: string }).state = 'stalled';
    }).toThrow(TypeError);
    status.update('a', { name: 'a', state: 'stalled' });
    expect(status.get('a')).not.toBe(before);
    expect(before.state).toBe('verified');
  });

  it('writes a long list in pieces that join into the same JSON, empty list included', () => {
    const many = Array.from({ length: 50 }, (_, i) => ({ name: `n${i}`, state: 'verified' }) as NodeStatus);
    const pieces = [...nodesJsonChunks(many, 200)];
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces.slice(0, -1)) expect(piece.length).toBeLessThan(200 + 100);
    expect(JSON.parse(pieces.join(''))).toEqual(many);
    expect([...nodesJsonChunks([])].join('')).toBe('[]');
  });
});
