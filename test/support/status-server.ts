// The daemon's real server over a status store, on loopback, with its other dependencies inert unless given
// (no source, no reconciler): for the tests and benchmarks that look at what the server shows.

import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import type { StatusStore } from '../../src/reconciler/status-store.js';
import { accessPolicy } from '../../src/server/access.js';
import { buildServer, type ServerDeps } from '../../src/server/app.js';
import { Metrics } from '../../src/server/metrics.js';

export function statusServer(status: StatusStore, deps: Partial<ServerDeps> = {}): FastifyInstance {
  return buildServer({
    status,
    metrics: new Metrics(status),
    log: pino({ level: 'silent' }),
    branch: 'main',
    fetchNow: async () => undefined,
    reconcile: () => [],
    plan: async () => [],
    hookSecrets: {},
    access: accessPolicy(randomBytes(32).toString('hex'), '127.0.0.1', []),
    ready: () => ({ ready: true }),
    ...deps,
  });
}

/** Listens on a free loopback port; the server's base URL. */
export async function listenOnLoopback(server: FastifyInstance): Promise<string> {
  await server.listen({ host: '127.0.0.1', port: 0 });
  const address = server.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}
