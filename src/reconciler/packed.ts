// Records the daemon keeps for every node but rarely reads (finished run reports, older history), packed: JSON,
// deflated, held as a one-byte string in the heap. A report packs to about an eighth of its JSON (9.3 KB to
// 1.2 KB for a Linux compute's first converge) in about 0.1 ms; reading it back takes less.

import { deflateRawSync, inflateRawSync } from 'node:zlib';

/** A packed value: only `unpack` reads it. */
export type Packed<T> = string & { readonly __packed: T };

export function pack<T>(value: T): Packed<T> {
  return deflateRawSync(JSON.stringify(value)).toString('latin1') as Packed<T>;
}

export function unpack<T>(packed: Packed<T>): T {
  return JSON.parse(inflateRawSync(Buffer.from(packed, 'latin1')).toString('utf8')) as T;
}

/** The packed value's bytes: raw deflate of its JSON (for a store that keeps them elsewhere, cluster mode's etcd). */
export function packedBytes<T>(packed: Packed<T>): Buffer {
  return Buffer.from(packed, 'latin1');
}
