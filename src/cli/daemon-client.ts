// The CLI's one way to talk to the daemon. Where the daemon left a runtime record, the listener must first prove
// it knows the record's identity key (daemon-identity.ts), unauthenticated; only then does the bearer token go
// out, on that same TCP connection and no other: a connection that closes is never silently replaced by a new
// one, which would reach whoever listens on the port by then.

import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { createConnection } from 'node:net';
import { newNonce, proofHolds } from '../daemon-identity.js';
import { inert } from './inert-text.js';
import type { RuntimeRecord } from './runtime-record.js';

export class DaemonUnreachable extends Error {}
/** The listener at the URL did not prove it is the recorded daemon, or there is no record to check it by. */
export class NotTheDaemon extends Error {}
/** The verified connection closed: what is sent next needs a new one, verified again. */
class ConnectionLost extends Error {}

export interface ClientOptions {
  url: string;
  session: DaemonSession;
}

/** An answer's headers by lower-case name (not fetch's Headers: loading fetch costs a read command ~50 ms of CPU). */
export interface AnswerHeaders {
  get(name: string): string | null;
}

interface Answer {
  status: number;
  headers: AnswerHeaders;
  text: string;
}

const TIMEOUT_MS = 10_000;

/** How requests go out: over one agent, with http's or https's request. */
interface Link {
  agent: Agent;
  send: typeof httpRequest;
}

/** One connection, never a second (a request then fails with ConnectionLost): the connection the proof came on. */
function pinnedLink(): Link {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let opened = false;
  agent.createConnection = (options, callback) => {
    if (opened) {
      callback?.(new ConnectionLost('the verified connection to the daemon closed'), undefined as never);
      return undefined;
    }
    opened = true;
    return createConnection(options as Parameters<typeof createConnection>[0]);
  };
  return { agent, send: httpRequest };
}

/** A daemon on another host (no record to check it by): plain keep-alive, or https through a TLS proxy. */
async function openLink(url: string): Promise<Link> {
  if (new URL(url).protocol !== 'https:') return { agent: new Agent({ keepAlive: true }), send: httpRequest };
  const https = await import('node:https');
  return { agent: new https.Agent({ keepAlive: true }), send: https.request };
}

function exchange(link: Link, url: string, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<Answer & { peer: { address?: string | undefined; port?: number | undefined } }>((resolve, reject) => {
    const target = new URL(path, url);
    const req = link.send(target, { agent: link.agent, method, headers }, (res: IncomingMessage) => {
      // Read now: once the answer is read, the socket goes back to the agent.
      const peer = { address: res.socket?.remoteAddress, port: res.socket?.remotePort };
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const got = res.headers;
        const out = {
          get: (name: string) => {
            const v = got[name.toLowerCase()];
            return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
          },
        };
        resolve({ status: res.statusCode ?? 0, headers: out, text: Buffer.concat(chunks).toString('utf8'), peer });
      });
    });
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${TIMEOUT_MS / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The daemon at one URL, and the token it may be sent; `record` is that daemon's runtime record where there is one. */
export class DaemonSession {
  #link: Promise<Link> | undefined;

  constructor(
    readonly url: string,
    private readonly token: string | undefined,
    private readonly record: (RuntimeRecord & { file: string }) | undefined,
  ) {}

  async request(method: string, path: string, body?: string, again = false): Promise<Answer> {
    this.#link ??= this.#connect();
    const headers: Record<string, string> = {
      ...(body ? { 'content-type': 'application/json' } : {}),
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
    };
    try {
      return await exchange(await this.#link, this.url, method, path, headers, body);
    } catch (err) {
      if (!(err instanceof ConnectionLost)) throw this.#unreachable(err);
      // A read may be asked again (once) on a new connection, verified as the first was; an action is not repeated.
      if (method !== 'GET' || again)
        throw new DaemonUnreachable(
          `the connection to the daemon at ${this.url} closed before ${method} ${path} was sent; run the command again`,
        );
      this.#link = this.#connect();
      return this.request(method, path, body, true);
    }
  }

  /** A new connection; where a record names the daemon, its proof of the record's key is asked on it first. */
  async #connect(): Promise<Link> {
    const record = this.record;
    if (!record) return openLink(this.url);
    const link = pinnedLink();
    const nonce = newNonce();
    let answer: Awaited<ReturnType<typeof exchange>>;
    try {
      answer = await exchange(link, this.url, 'GET', `/api/identity?nonce=${nonce}`, {});
    } catch (err) {
      throw this.#unreachable(err);
    }
    let proof: unknown;
    try {
      proof = (JSON.parse(answer.text) as { proof?: unknown }).proof;
    } catch {
      // no JSON: no proof
    }
    if (answer.status !== 200 || !proofHolds(record.identity, nonce, answer.peer, proof))
      throw new NotTheDaemon(
        `the listener at ${this.url} is not the groundcrew daemon of ${record.file} (pid ${record.pid}): ` +
          `it did not prove that record's key, so the API token was not sent (answered ${answer.status})`,
      );
    return link;
  }

  #unreachable(err: unknown): Error {
    if (err instanceof NotTheDaemon || err instanceof DaemonUnreachable) return err;
    const e = err as NodeJS.ErrnoException;
    return new DaemonUnreachable(
      `no groundcrew daemon answers at ${this.url} (${e.code ?? e.message}); ` +
        'start one with `groundcrew run --config FILE` (or `groundcrew demo`), or point at it with --url or GROUNDCREW_URL',
    );
  }
}

/** The answer's body and headers (a page of /api/nodes carries its total and next page in headers). */
export async function callWithHeaders<T>(
  options: ClientOptions,
  path: string,
  init: { method?: string; body?: string } = {},
): Promise<{ body: T; headers: AnswerHeaders }> {
  const response = await options.session.request(init.method ?? 'GET', path, init.body);
  let body = {} as T & { error?: string };
  try {
    body = JSON.parse(response.text) as T & { error?: string };
  } catch {
    // not JSON: the status says what went wrong
  }
  if (response.status < 200 || response.status > 299)
    throw new Error(`${response.status} from ${path}: ${inert(body.error ?? String(response.status))}`);
  return { body, headers: response.headers };
}

export async function call<T>(options: ClientOptions, path: string, init: { method?: string; body?: string } = {}): Promise<T> {
  return (await callWithHeaders<T>(options, path, init)).body;
}
