// IPv4 addresses and CIDR blocks as numbers: parse, contain, overlap, first host. Pure.

export interface Cidr {
  /** The block as written once normalised, e.g. `10.42.1.0/24`. */
  text: string;
  network: number;
  prefix: number;
}

export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined;
    value = value * 256 + Number(part);
  }
  return value;
}

export function formatIPv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function size(prefix: number): number {
  return 2 ** (32 - prefix);
}

/** A CIDR block, or why the text is not one (host bits set is an error: it names a network, not a host). */
export function parseCidr(text: string): Cidr | string {
  const match = /^([^/]+)\/(\d{1,2})$/.exec(text.trim());
  const address = match ? parseIPv4(match[1] as string) : undefined;
  const prefix = match ? Number(match[2]) : Number.NaN;
  if (address === undefined || !(prefix >= 0 && prefix <= 32)) return `"${text}" is not an IPv4 CIDR block like 10.42.1.0/24`;
  const network = address - (address % size(prefix));
  if (network !== address) return `"${text}" has host bits set (did you mean ${formatIPv4(network)}/${prefix}?)`;
  return { text: `${formatIPv4(network)}/${prefix}`, network, prefix };
}

/** The first address after the block. */
export function blockEnd(block: Cidr): number {
  return block.network + size(block.prefix);
}

export function contains(block: Cidr, address: number): boolean {
  return address >= block.network && address < blockEnd(block);
}

/** The first usable address: the gateway of a per-host subnet. */
export function firstHost(block: Cidr): number {
  return block.network + 1;
}
