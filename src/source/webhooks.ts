// Webhook verification for GitHub, GitLab, Gitea and a generic sender. A hook is only a nudge to fetch:
// its payload is read for the branch and nothing else, and never trusted for content.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const HOOK_KINDS = ['github', 'gitlab', 'gitea', 'generic'] as const;
export type HookKind = (typeof HOOK_KINDS)[number];

type Headers = Record<string, string | string[] | undefined>;

export type HookVerdict = { ok: true; delivery?: string; ref?: string; event?: string } | { ok: false; reason: string };

const header = (h: Headers, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/** Compares without leaking where the strings differ, or their lengths (both sides are hashed first). */
export function safeEqual(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

const hmac = (secret: string, body: Buffer) => createHmac('sha256', secret).update(body).digest('hex');

/** Checks a hook's signature against `secret`; on success, says which delivery and branch it is about. */
export function verifyHook(kind: HookKind, headers: Headers, body: Buffer, secret: string): HookVerdict {
  const signed = checkSignature(kind, headers, body, secret);
  if (signed !== true) return { ok: false, reason: signed };
  let ref: string | undefined;
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { ref?: unknown };
    if (typeof parsed.ref === 'string') ref = parsed.ref;
  } catch {
    // A signed body that is not JSON still means "look now".
  }
  const delivery =
    header(headers, 'x-github-delivery') ??
    header(headers, 'x-gitea-delivery') ??
    header(headers, 'x-gitlab-event-uuid') ??
    header(headers, 'x-delivery-id');
  const event = header(headers, 'x-github-event') ?? header(headers, 'x-gitea-event') ?? header(headers, 'x-gitlab-event');
  return { ok: true, ...(delivery ? { delivery } : {}), ...(ref ? { ref } : {}), ...(event ? { event } : {}) };
}

function checkSignature(kind: HookKind, headers: Headers, body: Buffer, secret: string): true | string {
  switch (kind) {
    case 'github': {
      // Only the SHA-256 header: X-Hub-Signature (SHA-1) is never accepted, even when it is right.
      const sig = header(headers, 'x-hub-signature-256');
      if (!sig)
        return header(headers, 'x-hub-signature')
          ? 'only X-Hub-Signature (SHA-1) was sent; X-Hub-Signature-256 is required'
          : 'no X-Hub-Signature-256 header';
      return safeEqual(sig, `sha256=${hmac(secret, body)}`) || 'X-Hub-Signature-256 does not match';
    }
    case 'gitlab': {
      const token = header(headers, 'x-gitlab-token');
      if (!token) return 'no X-Gitlab-Token header';
      return safeEqual(token, secret) || 'X-Gitlab-Token does not match';
    }
    case 'gitea': {
      const sig = header(headers, 'x-gitea-signature');
      if (!sig) return 'no X-Gitea-Signature header';
      return safeEqual(sig, hmac(secret, body)) || 'X-Gitea-Signature does not match';
    }
    case 'generic': {
      const sig = header(headers, 'x-signature');
      if (!sig) return 'no X-Signature header';
      return safeEqual(sig, `sha256=${hmac(secret, body)}`) || 'X-Signature does not match';
    }
  }
}

/** Delivery ids seen lately: a replayed hook is acknowledged and does nothing. */
export class DeliveryLog {
  readonly #seen = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  /** True the first time an id is seen. */
  first(id: string): boolean {
    if (this.#seen.has(id)) return false;
    this.#seen.add(id);
    if (this.#seen.size > this.capacity) {
      const oldest = this.#seen.values().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
    return true;
  }
}
