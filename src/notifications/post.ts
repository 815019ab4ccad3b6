// One POST of a notification. Redirects are followed by hand, and only within the sink's own origin (307 and
// 308, which keep the method and body, at most 5): a sink's credentials (a token header of any name, an HMAC
// key's signature, a chat URL that is itself the secret) never reach another host. Any other redirect is a
// refusal, not an answer to retry: the sink's URL is what needs fixing.

import { errors, type GroundcrewError } from '../errors.js';
import type { SinkRequest } from './sinks.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_HOPS = 5;

export type Fetch = typeof fetch;

/** A redirect not followed: the dispatcher does not retry it. */
export class RedirectRefused extends Error {
  constructor(readonly error: GroundcrewError) {
    super(error.message);
  }
}

/** The sink's answer (not a redirect), or RedirectRefused. `headers` are this try's (signed now). */
export async function post(
  fetchFn: Fetch,
  request: SinkRequest,
  headers: Record<string, string>,
  signal: AbortSignal,
  sink: string,
): Promise<Response> {
  const first = new URL(request.url);
  let url = first;
  for (let hop = 0; ; hop++) {
    const res = await fetchFn(url, { method: 'POST', headers, body: request.body, redirect: 'manual', signal });
    const location = res.headers.get('location');
    if (!REDIRECTS.has(res.status) || location === null) return res;
    await res.body?.cancel();
    const next = new URL(location, url);
    const refuse = (why: string) =>
      new RedirectRefused(errors.GC_NOTIFY_FAILED(`sink "${sink}" answered ${res.status}: ${why}; not followed, not retried`));
    // Only the origin is named: a chat webhook's path is its secret.
    if (next.origin !== first.origin) throw refuse(`a redirect to another origin (${next.origin}): fix the sink's URL`);
    if (res.status !== 307 && res.status !== 308) throw refuse("a redirect that would turn the POST into a GET: fix the sink's URL");
    if (hop === MAX_HOPS) throw refuse(`more than ${MAX_HOPS} redirects`);
    url = next;
  }
}
