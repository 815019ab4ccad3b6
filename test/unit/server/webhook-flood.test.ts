// Issue 39: anyone can post to /hooks/*, and 3,000 bad-signature posts wrote 3,000 warning lines. Now the posts
// of one client past its share a minute are answered 429 before the body is read, and refused webhooks are
// logged once, then summed up at most once a period. A Git host posting from another address is not held back:
// its signed push still makes the daemon fetch. Real HTTP on loopback (127.0.0.1 floods, 127.0.0.2 is the host).

import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { logSink } from '../../support/log-sink.js';
import { listenOnLoopback, statusServer } from '../../support/status-server.js';
import { waitUntil } from '../../support/wait-until.js';

const SECRET = 'the-webhook-secret';
const PERIOD_MS = 1000;
const PER_MINUTE = 60;
const log = logSink();
const fetches: string[] = [];
let server: FastifyInstance;
let port = 0;

beforeAll(async () => {
  server = statusServer(new StatusStore(), {
    log: pino({ level: 'info' }, log.stream),
    hookSecrets: { github: SECRET },
    fetchNow: async (reason) => {
      fetches.push(reason);
    },
    hookLogPeriodMs: PERIOD_MS,
    hooksPerMinute: PER_MINUTE,
  });
  port = Number(new URL(await listenOnLoopback(server)).port);
});
afterAll(() => server.close());

/** POST /hooks/github from `localAddress`; the answer's status. */
function post(localAddress: string, body: string, signature: string, delivery: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        localAddress,
        method: 'POST',
        path: '/hooks/github',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'push',
          'x-github-delivery': delivery,
          'x-hub-signature-256': signature,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const rejectedLines = () => log.records<{ msg: string; rejected?: number }>().filter((r) => /rejected/.test(r.msg));

describe('a flood of bad webhooks', { timeout: 120_000 }, () => {
  it('writes a bounded number of log lines, and a signed push from the Git host still makes the daemon fetch', async () => {
    const body = JSON.stringify({ ref: 'refs/heads/main' });
    const started = Date.now();
    const statuses = new Map<number, number>();
    for (let i = 0; i < 3000; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: 50 }, (_, j) => post('127.0.0.1', body, `sha256=${'0'.repeat(64)}`, `bad-${i + j}`)),
      );
      for (const status of batch) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const elapsed = Date.now() - started;
    // The client's share is answered (401: a bad signature), the rest is refused before its body is read.
    expect(Object.fromEntries(statuses)).toEqual({ 401: PER_MINUTE, 429: 3000 - PER_MINUTE });
    expect(fetches).toEqual([]);
    // Every refusal is accounted for: the first logged at once, the others in summaries...
    await waitUntil(
      () => `the summaries to account for all 3,000 refusals (so far ${JSON.stringify(rejectedLines())})`,
      () => 1 + rejectedLines().reduce((sum, r) => sum + (r.rejected ?? 0), 0) === 3000,
      { timeoutMs: 30_000 },
    );
    // ... one a period at most: the bound, for a flood that lasted `elapsed` ms.
    const bound = 1 + Math.ceil((Date.now() - started) / PERIOD_MS) + 1;
    expect(rejectedLines().length).toBeLessThanOrEqual(bound);
    expect(rejectedLines().length).toBeLessThan(3000 / 10);
    expect(rejectedLines()[0]).toMatchObject({ msg: 'webhook rejected', reason: 'X-Hub-Signature-256 does not match', from: '127.0.0.1' });
    // No other line about the flood (the server's "listening" line aside).
    expect(
      log.records<{ msg: string }>().filter((r) => !/rejected|listening/.test(r.msg)),
      `flood of ${elapsed} ms`,
    ).toEqual([]);

    // The Git host, from its own address, signed: answered 202, and the daemon fetches.
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    expect(await post('127.0.0.2', body, signature, 'good-1')).toBe(202);
    expect(fetches).toEqual(['webhook github']);
  });
});
