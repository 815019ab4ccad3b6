// Git's smart HTTP on loopback: a plain Node HTTP server hands each request to the real `git http-backend`
// as a CGI (git-http-backend(1)), serving every repository under `root`. Each request is recorded with the
// `Via` header a proxy adds, so a test can tell a request that came through the proxy from one that did not.
// With `auth`, every request must carry that user and password as HTTP Basic (RFC 7617), as a Git host asks of a
// token: without it, 401 and a `WWW-Authenticate: Basic` challenge; with another, 401 again (git then says
// "Authentication failed").

import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface GitHttpRequest {
  method: string;
  url: string;
  /** The `Via` header (tinyproxy adds one), or undefined for a request that came direct. */
  via?: string;
  /** The credential the request carried, decoded (`user:password`), or undefined without one. */
  basic?: string;
}

export interface GitHttpServerOptions {
  /** PEM key and certificate: served over TLS. */
  tls?: { key: string; cert: string };
  /** The one credential every request must carry (HTTP Basic). */
  auth?: { user: string; password: string };
  /** Awaited before a request is answered (a test holds the client there until it has seen what it waits for); its failure is a 500. */
  hold?: (request: GitHttpRequest) => Promise<void>;
}

export interface GitHttpServer {
  /** `http://127.0.0.1:PORT`, or `https://` when served with a certificate */
  base: string;
  requests: GitHttpRequest[];
  close(): Promise<void>;
}

/** Serves the repositories under `root`; over TLS with `tls`, only to `auth` with it. */
export async function startGitHttpServer(root: string, { tls, auth, hold }: GitHttpServerOptions = {}): Promise<GitHttpServer> {
  const requests: GitHttpRequest[] = [];
  const handle: RequestListener = (req, res) => {
    const basic = basicCredential(req.headers.authorization);
    const request = {
      method: req.method ?? '',
      url: req.url ?? '',
      ...(req.headers.via ? { via: String(req.headers.via) } : {}),
      ...(basic !== undefined ? { basic } : {}),
    };
    requests.push(request);
    if (hold) {
      hold(request).then(
        () => answer(req, res, basic),
        (err: unknown) => {
          req.resume();
          res.statusCode = 500;
          res.end(`${err instanceof Error ? err.message : String(err)}\n`);
        },
      );
    } else answer(req, res, basic);
  };
  const answer = (req: IncomingMessage, res: ServerResponse, basic: string | undefined) => {
    if (auth && basic !== `${auth.user}:${auth.password}`) {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"', 'Content-Type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    serveCgi(root, req, res);
  };
  const server: Server = tls ? createTlsServer(tls, handle) : createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function basicCredential(header: string | undefined): string | undefined {
  const m = header && /^Basic\s+(\S+)$/i.exec(header);
  return m ? Buffer.from(m[1] as string, 'base64').toString('utf8') : undefined;
}

function serveCgi(root: string, req: IncomingMessage, res: ServerResponse): void {
  // A proxy sends the absolute URL on the request line; a direct client the path.
  const url = new URL(req.url ?? '/', 'http://placeholder');
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '',
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headerDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headerDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headerDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
      if (/^status$/i.test(name)) status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.statusCode = status;
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => res.end());
  child.on('error', () => {
    res.statusCode = 500;
    res.end();
  });
}
