// Identifiers a simulated Windows host makes up, stable for the same input: MSI product codes, thumbprints.

import { createHash } from 'node:crypto';

export function productCode(name: string, version: string): string {
  const h = createHash('sha1').update(`${name}@${version}`).digest('hex').toUpperCase();
  return `{${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}}`;
}

export function thumbprintOf(content: string): string {
  return createHash('sha1').update(content).digest('hex').toUpperCase();
}

/** A Docker network ID: 64 lowercase hex digits, printed shortened to 12 (docker/cli network_ls.md). */
export function networkId(name: string): string {
  return createHash('sha256').update(`network:${name}`).digest('hex');
}
