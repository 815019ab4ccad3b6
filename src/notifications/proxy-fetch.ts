// Notification requests through the site's proxy: `http_proxy` for http URLs, `https_proxy` for https ones
// (else `http_proxy`, as undici does), and `no_proxy` (lower case first, then upper, as curl reads them), with
// undici's EnvHttpProxyAgent: Node 20's own fetch offers no proxy. An http URL is sent to the proxy as a plain
// proxied request (absolute-form, as curl sends it), not through a CONNECT tunnel: tinyproxy's and squid's default
// configurations allow CONNECT to port 443 only and answered 403 (issue 39); https URLs are still tunnelled.

import { EnvHttpProxyAgent, fetch as undiciFetch } from 'undici';
import type { Fetch } from './post.js';

/** The variable's value; '' when unset (undici reads the process's own for a value left undefined). */
const variable = (env: NodeJS.ProcessEnv, name: string) => env[name] || env[name.toUpperCase()] || '';

/** A fetch whose requests go through the proxy `env` names (directly where it names none, or `no_proxy` matches). */
export function proxiedFetch(env: NodeJS.ProcessEnv): Fetch {
  const agent = new EnvHttpProxyAgent({
    httpProxy: variable(env, 'http_proxy'),
    httpsProxy: variable(env, 'https_proxy'),
    noProxy: variable(env, 'no_proxy'),
    proxyTunnel: false,
  });
  return ((input: string | URL, init?: RequestInit) =>
    undiciFetch(input, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent })) as unknown as Fetch;
}
