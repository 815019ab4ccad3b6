// Host keys trusted on first use and pinned; a changed key is refused. `PinStore` is where pins live: the pin
// file in the state directory (`HostKeyStore`, here), or in cluster mode etcd, shared by every member
// (cluster/host-key-pins.ts). A pin file that cannot be read or parsed refuses every connection: treating it as
// empty would trust whatever key a host presents now, and the next save would overwrite the evidence.

import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { errors, type GroundcrewError } from '../errors.js';
import { writePrivateFileSync } from '../private-files.js';

/** OpenSSH's fingerprint format: SHA256:<base64 without padding>. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** A SHA-256 fingerprint as `ssh-keygen -lf` prints it: 32 bytes, base64 without its one `=`. */
export const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]$/;

export interface Pin {
  fingerprint: string;
  /** When it was pinned (absent for pins written before this was recorded). */
  pinnedAt?: string;
  /** The node it was pinned for, when known. */
  node?: string;
}

export type HostKeyVerdict = { ok: true; pinnedNow: boolean } | { ok: false; pinned: string; presented: string };

/**
 * Where pins are kept. Lookups may be cached by the store; `fresh` asks for the stored pin itself (a cached pin
 * differed from the key a host presented: an operator may have re-trusted it since). Both throw, with
 * GC_SSH_PINS_UNREADABLE or GC_SSH_HOSTKEY_MISMATCH, when the store cannot be trusted for that endpoint.
 */
export interface PinStore {
  lookup(endpoint: string, fresh?: boolean): Promise<Pin | undefined>;
  /** Pins `pin` unless the endpoint has a pin already: the first pin wins, and is what this resolves to. */
  pinIfAbsent(endpoint: string, pin: Pin): Promise<{ pin: Pin; created: boolean }>;
}

/** Checks a presented key against a store: the first key seen is pinned, a different one later is refused. */
export async function checkHostKey(
  store: PinStore,
  endpoint: string,
  presented: string,
  node?: string,
  now = new Date(),
): Promise<HostKeyVerdict> {
  let pinned = await store.lookup(endpoint);
  if (pinned && pinned.fingerprint !== presented) pinned = await store.lookup(endpoint, true);
  if (pinned === undefined) {
    const first = await store.pinIfAbsent(endpoint, { fingerprint: presented, pinnedAt: now.toISOString(), ...(node ? { node } : {}) });
    // Another process pinned first: its key is the one in force.
    if (first.created) return { ok: true, pinnedNow: true };
    pinned = first.pin;
  }
  return pinned.fingerprint === presented ? { ok: true, pinnedNow: false } : { ok: false, pinned: pinned.fingerprint, presented };
}

/** A pin as the file (or etcd) holds it: the fingerprint alone (older files), or with when and for which node. */
export function parsePin(value: unknown): Pin | undefined {
  if (typeof value === 'string') return FINGERPRINT.test(value) ? { fingerprint: value } : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const { fingerprint: fp, pinnedAt, node } = value as Record<string, unknown>;
  if (typeof fp !== 'string' || !FINGERPRINT.test(fp)) return undefined;
  if (pinnedAt !== undefined && typeof pinnedAt !== 'string') return undefined;
  if (node !== undefined && typeof node !== 'string') return undefined;
  return { fingerprint: fp, ...(pinnedAt ? { pinnedAt } : {}), ...(node ? { node } : {}) };
}

export class HostKeyStore implements PinStore {
  /** Pins of a store without a file (tests, demo); a file's pins are read afresh each time (`hosts trust` edits it). */
  readonly #memory = new Map<string, Pin>();

  /** `path` is a JSON file in the state directory; null keeps pins in memory only (tests, demo). */
  constructor(
    readonly path: string | null,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Every pin by endpoint (`host:port`); throws GC_SSH_PINS_UNREADABLE when the file cannot be trusted. */
  pins(): Map<string, Pin> {
    if (!this.path) return new Map(this.#memory);
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
      throw this.#unreadable(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, err);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw this.#unreadable(`is not valid JSON (${(err as Error).message}; ${text.length} bytes)`, err);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw this.#unreadable('is not a JSON object of endpoint to fingerprint');
    }
    const pins = new Map<string, Pin>();
    for (const [endpoint, value] of Object.entries(parsed)) {
      const pin = parsePin(value);
      if (!pin) throw this.#unreadable(`holds ${JSON.stringify(endpoint)} without a SHA256 fingerprint`);
      pins.set(endpoint, pin);
    }
    return pins;
  }

  /** Throws GC_SSH_PINS_UNREADABLE when the pin file cannot be trusted: checked before any connection. */
  assertReadable(): void {
    this.pins();
  }

  async lookup(endpoint: string): Promise<Pin | undefined> {
    return this.pins().get(endpoint);
  }

  /** Read, checked and written in one turn of the event loop: no other check in this process comes between. */
  async pinIfAbsent(endpoint: string, pin: Pin): Promise<{ pin: Pin; created: boolean }> {
    const pins = this.pins();
    const pinned = pins.get(endpoint);
    if (pinned) return { pin: pinned, created: false };
    pins.set(endpoint, pin);
    this.#save(pins);
    return { pin, created: true };
  }

  check(endpoint: string, presented: string, node?: string): HostKeyVerdict {
    const pins = this.pins();
    const pinned = pins.get(endpoint);
    if (pinned === undefined) {
      pins.set(endpoint, { fingerprint: presented, pinnedAt: this.now().toISOString(), ...(node ? { node } : {}) });
      this.#save(pins);
      return { ok: true, pinnedNow: true };
    }
    return pinned.fingerprint === presented ? { ok: true, pinnedNow: false } : { ok: false, pinned: pinned.fingerprint, presented };
  }

  /** Pins `fingerprint` for `endpoint` in place of any pin it had (an operator checked the new key out of band). */
  trust(endpoint: string, fp: string, node?: string): Pin {
    if (!FINGERPRINT.test(fp)) throw new Error(`expected a fingerprint such as SHA256:<43 base64 characters>, found ${JSON.stringify(fp)}`);
    const pins = this.pins();
    const named = node ?? pins.get(endpoint)?.node;
    const pin: Pin = { fingerprint: fp, pinnedAt: this.now().toISOString(), ...(named ? { node: named } : {}) };
    pins.set(endpoint, pin);
    this.#save(pins);
    return pin;
  }

  #unreadable(why: string, cause?: unknown): GroundcrewError {
    return errors.GC_SSH_PINS_UNREADABLE(
      `host key pin file ${this.path} ${why}: refusing SSH to every node rather than trusting whatever keys they present now. ` +
        'The file is left as it is: restore it from a backup, or move it aside and re-pin each node with ' +
        '`groundcrew hosts trust NODE --fingerprint SHA256:…` after checking its key out of band',
      cause,
    );
  }

  /** Temp file, fsync, rename, fsync of the directory: a crash leaves the old pins or the new, never half. */
  #save(pins: Map<string, Pin>): void {
    if (!this.path) {
      this.#memory.clear();
      for (const [k, v] of pins) this.#memory.set(k, v);
      return;
    }
    const dir = dirname(this.path);
    mkdirSync(dir, { recursive: true });
    // A random temporary name, created exclusively: a predictable one could be planted as a link to follow.
    writePrivateFileSync(this.path, `${JSON.stringify(Object.fromEntries(pins), null, 2)}\n`);
    const dirFd = openSync(dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  }
}
