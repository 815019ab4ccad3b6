// The generic webhook's signature, as Standard Webhooks specifies it (standard-webhooks/standard-webhooks,
// spec/standard-webhooks.md, v1.0.0): `webhook-id` (the same on every try of one event), `webhook-timestamp`
// (integer seconds, new on every try) and `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
// A receiver that checks the timestamp against a window refuses a captured request replayed later.

import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** The HMAC key: a `whsec_…` secret is base64 (as the spec's libraries read it); any other secret is its UTF-8 bytes. */
export function signingKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** The three headers for one try of `body`, signed at `at`. */
export function standardWebhookHeaders(key: Buffer, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
}
