// How a daemon proves to the CLI on its host that it is the one whose runtime record the CLI read, before the CLI
// sends it the API token: each start draws a key that only the record (0600, in a directory of the daemon's user)
// and the daemon's memory hold; the CLI sends a nonce of its own, and only the daemon can answer its HMAC. The MAC
// covers the address and port the daemon's end of the connection has, which the CLI checks against the peer of
// its own: a listener elsewhere that relays the challenge to the daemon gets an answer for the daemon's address.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh key for one start of the daemon (hex). */
export const newIdentityKey = () => randomBytes(32).toString('hex');

/** A nonce the CLI draws for one challenge (hex). */
export const newNonce = () => randomBytes(32).toString('hex');

/** What a nonce may look like on the wire: 32 to 128 hex digits. */
export const NONCE_FORM = /^[0-9a-f]{32,128}$/;

/** One end of a TCP connection: an IPv4 address seen through a dual-stack socket is written as IPv4. */
export interface Endpoint {
  address?: string | undefined;
  port?: number | undefined;
}
const endpoint = (e: Endpoint) => `${(e.address ?? '').replace(/^::ffff:(?=\d+\.)/, '')} ${e.port ?? ''}`;

/** The answer to `nonce` under `key` on a connection whose daemon end is `at`; the label keeps it from standing for any other MAC. */
export const identityProof = (key: string, nonce: string, at: Endpoint) =>
  createHmac('sha256', Buffer.from(key, 'hex'))
    .update(`groundcrew daemon identity v1\n${nonce}\n${endpoint(at)}`)
    .digest('hex');

/** Whether `proof` is the answer to `nonce` under `key` from the daemon end `at` (in constant time). */
export function proofHolds(key: string, nonce: string, at: Endpoint, proof: unknown): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof) || !at.address || !at.port) return false;
  return timingSafeEqual(Buffer.from(proof, 'hex'), Buffer.from(identityProof(key, nonce, at), 'hex'));
}
