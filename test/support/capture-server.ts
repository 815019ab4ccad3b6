// A real HTTP server on loopback that keeps every request it is sent (method, path, headers, body, when) and
// answers each as the test says (200 by default), for the notification tests.

import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { waitUntil } from './wait-until.js';

export interface Captured {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface CaptureServer {
  url: string;
  requests: Captured[];
  /** How the next requests are answered, in order; once they run out, 200 `{}`. */
  answers: ((res: ServerResponse, req: Captured) => void)[];
  /** Waits until `count` requests came (a generous deadline), and returns them all. */
  received(count: number): Promise<Captured[]>;
  close(): Promise<void>;
}

export async function captureServer(host = '127.0.0.1'): Promise<CaptureServer> {
  const requests: Captured[] = [];
  const answers: CaptureServer['answers'] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString();
    });
    req.on('end', () => {
      const captured = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() };
      requests.push(captured);
      const answer = answers.shift() ?? ((r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      answer(res, captured);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host}:${port}`,
    requests,
    answers,
    async received(count) {
      await waitUntil(
        () => `${count} requests (the capture server saw ${requests.length})`,
        () => requests.length >= count,
      );
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
