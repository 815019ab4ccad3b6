// Who may talk to the daemon: the Host header must name the daemon (DNS rebinding), a browser request
// from another origin may not act, and acting (or planning) takes the bearer token, loopback included.

import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../source/webhooks.js';

export interface AccessPolicy {
  /** The bearer token every mutating route and /api/plan require. */
  token: string;
  /** Host names (no port) a request may carry in its Host header. */
  hosts: ReadonlySet<string>;
  /** A wildcard bind answers on every address: any IP literal is the daemon's own (an IP cannot be rebound). */
  anyIpLiteral: boolean;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];
const WILDCARD = ['0.0.0.0', '::', ''];

const bare = (host: string) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1');

/** The names the daemon answers to: its listen address, loopback names on a loopback or wildcard bind, and `server.hosts`. */
export function accessPolicy(token: string, listenHost: string, extra: readonly string[]): AccessPolicy {
  const listen = bare(listenHost);
  const wildcard = WILDCARD.includes(listen);
  const loopback = wildcard || LOOPBACK_NAMES.includes(listen) || listen.startsWith('127.');
  const hosts = new Set([listen, ...extra.map(bare), ...(loopback ? LOOPBACK_NAMES : [])]);
  return { token, hosts, anyIpLiteral: wildcard };
}

/** The host name of a Host header ("[::1]:7070" → "::1"), or undefined when it is not one. */
function hostName(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return bare(new URL(`http://${header}`).hostname);
  } catch {
    return undefined;
  }
}

export function hostAllowed(policy: AccessPolicy, header: string | undefined): boolean {
  const name = hostName(header);
  if (name === undefined) return false;
  return policy.hosts.has(name) || (policy.anyIpLiteral && isIP(name) !== 0);
}

/** A browser's request from a page of another origin (no Origin header: not a browser, or same-origin). */
export function crossOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin;
  if (request.headers['sec-fetch-site'] === 'cross-site') return origin ?? 'a cross-site page';
  if (origin === undefined) return undefined;
  try {
    const url = new URL(origin);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.host === request.headers.host?.toLowerCase()) return undefined;
  } catch {
    // "null" (a sandboxed frame, a file) and anything unparsable is not the daemon's own origin.
  }
  return origin;
}

/** Every request: refused with 421 when its Host is not one of the daemon's names. Webhooks carry their own HMAC. */
export function checkHost(policy: AccessPolicy) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.url.startsWith('/hooks/') || hostAllowed(policy, request.headers.host)) return;
    return reply
      .code(421)
      .type('text/plain')
      .send(`Host "${request.headers.host ?? ''}" is not a name of this daemon (add it to server.hosts in the daemon config)\n`);
  };
}

/** A route that acts or plans: same origin, and the bearer token. Its answers, refusals included, are never stored by a cache. */
export function requireToken(policy: AccessPolicy) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('cache-control', 'no-store');
    const foreign = crossOrigin(request);
    if (foreign !== undefined)
      return reply
        .code(403)
        .send({ error: `cross-origin request from ${foreign} refused: only the daemon's own pages and the CLI may act` });
    const auth = request.headers.authorization ?? '';
    if (auth.startsWith('Bearer ') && safeEqual(auth.slice('Bearer '.length), policy.token)) return;
    // A token that is not this daemon's is told apart from none (RFC 6750 section 3.1: invalid_token).
    const given = auth.startsWith('Bearer ');
    return reply
      .code(401)
      .header('www-authenticate', given ? 'Bearer error="invalid_token"' : 'Bearer')
      .send({
        error: given
          ? "the bearer token is not this daemon's: a daemon makes a new one when its state directory is new; give the api-token file of this daemon's state directory (--token-file)"
          : 'a bearer token is required: the CLI on the daemon host finds it; elsewhere give --token-file (the api-token file in the state directory)',
      });
  };
}
