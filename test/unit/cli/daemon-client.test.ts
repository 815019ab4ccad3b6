// The CLI's client over real HTTP on loopback: the token goes out only on the connection the proof came on. A
// connection the daemon closes is replaced for a read (the proof asked again on the new one), never for an action.

import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { call, DaemonSession, DaemonUnreachable } from '../../../src/cli/daemon-client.js';
import { identityProof, newIdentityKey } from '../../../src/daemon-identity.js';

const key = newIdentityKey();
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** A daemon that proves `key`; `closing` says, per request, whether it closes the connection after answering. */
async function daemon(closing: (req: IncomingMessage, n: number) => boolean) {
  const seen: { url: string; authorization?: string; connection: number }[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    seen.push({
      url: req.url ?? '',
      connection: (req.socket as unknown as { n: number }).n,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    if (closing(req, seen.length)) res.setHeader('connection', 'close');
    res.setHeader('content-type', 'application/json');
    const nonce = /nonce=([0-9a-f]+)/.exec(req.url ?? '')?.[1];
    res.end(
      nonce ? JSON.stringify({ proof: identityProof(key, nonce, { address: req.socket.localAddress, port: req.socket.localPort }) }) : '[]',
    );
  });
  servers.push(server);
  server.on('connection', (socket) => {
    (socket as unknown as { n: number }).n = ++connections;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const record = { url, tokenFile: '/nonexistent', pid: process.pid, identity: key, file: '/nonexistent/daemon.json' };
  return { seen, options: { url, session: new DaemonSession(url, 'the-token', record) } };
}

describe('DaemonSession', () => {
  it('asks the proof, then sends the token on that same connection', async () => {
    const { seen, options } = await daemon(() => false);
    await call(options, '/api/nodes');
    await call(options, '/api/revisions');
    expect(seen.map((s) => [s.url.split('?')[0], s.authorization ?? null, s.connection])).toEqual([
      ['/api/identity', null, 1],
      ['/api/nodes', 'Bearer the-token', 1],
      ['/api/revisions', 'Bearer the-token', 1],
    ]);
  });

  it('a read after the daemon closed the connection goes on a new one, proved again; an action is refused', async () => {
    // The daemon closes the connection after its first read's answer.
    const { seen, options } = await daemon((req, n) => n === 2);
    await call(options, '/api/nodes');
    await call(options, '/api/revisions');
    expect(seen.map((s) => [s.url.split('?')[0], s.authorization ?? null, s.connection])).toEqual([
      ['/api/identity', null, 1],
      ['/api/nodes', 'Bearer the-token', 1],
      ['/api/identity', null, 2],
      ['/api/revisions', 'Bearer the-token', 2],
    ]);
    const closing = await daemon((req) => !req.url?.startsWith('/api/identity'));
    await call(closing.options, '/api/nodes');
    await expect(call(closing.options, '/api/reconcile', { method: 'POST', body: '{}' })).rejects.toThrow(DaemonUnreachable);
    expect(closing.seen.filter((s) => s.url === '/api/reconcile')).toEqual([]);
  });
});
