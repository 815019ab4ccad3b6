// Every answer of a route that takes the token says `Cache-Control: no-store` (a plan lists what would change
// on each node; no proxy or browser cache may keep it), the refusals included.

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { accessPolicy } from '../../../src/server/access.js';
import { listenOnLoopback, statusServer } from '../../support/status-server.js';

const TOKEN = 'a-test-token-of-some-length';
let server: FastifyInstance;
let base = '';
beforeAll(async () => {
  const status = new StatusStore();
  status.update('ctrl1', { name: 'ctrl1', state: 'verified' });
  server = statusServer(status, {
    access: accessPolicy(TOKEN, '127.0.0.1', []),
    plan: async () => [{ node: 'ctrl1', changes: [] }],
    reconcile: (nodes) => nodes,
  });
  base = await listenOnLoopback(server);
});
afterAll(() => server.close());

const bearer = { authorization: `Bearer ${TOKEN}` };

describe('authenticated answers', () => {
  it('carry Cache-Control: no-store, with the token or without', async () => {
    const answers = [
      ['GET /api/plan with the token', await fetch(`${base}/api/plan`, { headers: bearer }), 200],
      ['GET /api/plan without', await fetch(`${base}/api/plan`), 401],
      [
        'POST /api/reconcile with the token',
        await fetch(`${base}/api/reconcile`, {
          method: 'POST',
          headers: { ...bearer, 'content-type': 'application/json' },
          body: '{"nodes":["ctrl1"]}',
        }),
        200,
      ],
      ['POST /api/reconcile without', await fetch(`${base}/api/reconcile`, { method: 'POST', body: '{}' }), 401],
      [
        'a page of another origin',
        await fetch(`${base}/api/reconcile`, { method: 'POST', headers: { ...bearer, origin: 'http://evil.example' }, body: '{}' }),
        403,
      ],
    ] as const;
    for (const [what, res, code] of answers) {
      expect(res.status, what).toBe(code);
      expect(res.headers.get('cache-control'), what).toBe('no-store');
    }
    expect(await (await fetch(`${base}/api/plan`, { headers: bearer })).json()).toEqual([{ node: 'ctrl1', changes: [] }]);
  });
});
