// Host key pins shared by every member (cluster mode): `<prefix>hostkeys/<host:port>`, created if absent in a
// transaction, so the first member to see a node's key pins it and every member checks against that pin. A
// member taking a node over after a failover cannot trust on first use a key the first owner never saw.
//
// The member's own pin file seeds etcd once, before its first lookup: a file pin etcd lacks is written there; a
// file pin that differs from etcd's is a dispute, refused (GC_SSH_HOSTKEY_MISMATCH) and logged as an error, never
// overwritten either way. The one exception: etcd's pin was set by an operator (`groundcrew hosts trust`) after
// the file's was pinned, so the operator has decided already; the file is brought up to date.
//
// Pins read are cached: a cached pin that differs from a presented key is read again at once (checkHostKey), so a
// re-trust after a reinstall reaches every member on its next connection; any cached pin is read again after
// `maxAgeMs`, so a re-trust that revokes a key still presented reaches a member's new connections within that.

import type { IKeyValue } from 'etcd3';
import { type HostKeyStore, type Pin, type PinStore, parsePin } from '../dataplane/host-keys.js';
import { errors } from '../errors.js';
import type { ClusterContext } from './etcd.js';
import { within } from './membership.js';

/** A pin in etcd: who pinned it, and whether an operator did (`groundcrew hosts trust`). */
export interface SharedPin extends Pin {
  by?: string;
  trusted?: boolean;
}

/** Keys created per seeding transaction: a compare and a put each, 128 operations in all. */
const SEED_BATCH = 64;

/**
 * How a member's file pin stands against the cluster's: the same key; superseded (an operator trusted etcd's
 * key after the file's was pinned); or a dispute no one has decided. A date that does not parse decides nothing.
 */
export function judgeFilePin(file: Pin, shared: SharedPin): 'same' | 'superseded' | 'dispute' {
  if (file.fingerprint === shared.fingerprint) return 'same';
  if (!shared.trusted || !shared.pinnedAt) return 'dispute';
  const fileAt = file.pinnedAt === undefined ? Number.NEGATIVE_INFINITY : Date.parse(file.pinnedAt);
  return Date.parse(shared.pinnedAt) > fileAt ? 'superseded' : 'dispute';
}

/** A pin's value in etcd as written; `parseShared` reads it back, refusing anything else. */
export function sharedValue(pin: SharedPin): string {
  return JSON.stringify(pin);
}

export function parseShared(text: string): SharedPin | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const pin = parsePin(value);
  if (!pin || typeof value !== 'object' || value === null) return undefined;
  const { by, trusted } = value as Record<string, unknown>;
  if (by !== undefined && typeof by !== 'string') return undefined;
  if (trusted !== undefined && typeof trusted !== 'boolean') return undefined;
  return { ...pin, ...(by ? { by } : {}), ...(trusted ? { trusted } : {}) };
}

export interface SharedPinsOptions extends Omit<ClusterContext, 'rejected'> {
  member: string;
  /** This member's pin file: the seed. */
  file: HostKeyStore;
  /** A cached pin older than this is read again (default 60 s). */
  maxAgeMs?: number;
  now?: () => number;
}

export class SharedHostKeyPins implements PinStore {
  readonly #cache = new Map<string, { pin: SharedPin; readAt: number }>();
  /** File pins that disagree with etcd's, by endpoint: refused until etcd's pin changes to settle it. */
  readonly #disputes = new Map<string, Pin>();
  #seeded: Promise<void> | undefined;
  /** Etcd reads and transactions made (for tests). */
  reads = 0;

  constructor(private readonly options: SharedPinsOptions) {}

  async lookup(endpoint: string, fresh = false): Promise<Pin | undefined> {
    await this.seed();
    const disputed = this.#disputes.get(endpoint);
    const cached = this.#cache.get(endpoint);
    if (!fresh && !disputed && cached && this.#now() - cached.readAt < (this.options.maxAgeMs ?? 60_000)) return cached.pin;
    const shared = await this.#read(endpoint);
    if (disputed) return this.#settle(endpoint, disputed, shared);
    return shared;
  }

  async pinIfAbsent(endpoint: string, pin: Pin): Promise<{ pin: Pin; created: boolean }> {
    await this.seed();
    return this.#create(endpoint, { ...pin, by: this.options.member });
  }

  /** Every pin in etcd, by endpoint, and the endpoints whose value is not a pin (refused at lookup). */
  async all(): Promise<{ pins: Map<string, SharedPin>; broken: string[] }> {
    const { client, keys, timeoutMs } = this.options;
    this.reads++;
    const res = await this.#etcd(client.getAll().prefix(keys.hostKeys()).exec(), timeoutMs, 'read the host key pins');
    const pins = new Map<string, SharedPin>();
    const broken: string[] = [];
    for (const kv of res.kvs) {
      const endpoint = kv.key.toString().slice(keys.hostKeys().length);
      const pin = parseShared(kv.value.toString());
      if (pin) pins.set(endpoint, pin);
      else broken.push(endpoint);
    }
    return { pins, broken };
  }

  /** `groundcrew hosts trust` in cluster mode: an operator's pin, in place of any, for every member. */
  async trust(endpoint: string, pin: Pin): Promise<SharedPin> {
    const { client, keys, timeoutMs } = this.options;
    const value: SharedPin = { ...pin, by: 'operator', trusted: true };
    await this.#etcd(client.put(keys.hostKey(endpoint)).value(sharedValue(value)).exec(), timeoutMs, 'pin the host key');
    return value;
  }

  /** The file's pins written to etcd where absent, disputes found; once, before the first lookup (retried if it failed). */
  seed(): Promise<void> {
    this.#seeded ??= this.#seed().catch((err: unknown) => {
      this.#seeded = undefined;
      throw err;
    });
    return this.#seeded;
  }

  async #seed(): Promise<void> {
    const { file, log } = this.options;
    // A pin file that cannot be trusted refuses every connection, as it does alone (GC_SSH_PINS_UNREADABLE).
    const mine = file.pins();
    const { pins: shared, broken } = await this.all();
    const readAt = this.#now();
    for (const [endpoint, pin] of shared) this.#cache.set(endpoint, { pin, readAt });
    // A broken value in etcd is not absent: its endpoint is refused at lookup (GC_SSH_PINS_UNREADABLE), not re-seeded.
    const absent = [...mine].filter(([endpoint]) => !shared.has(endpoint) && !broken.includes(endpoint));
    for (let i = 0; i < absent.length; i += SEED_BATCH) await this.#createAll(absent.slice(i, i + SEED_BATCH));
    for (const [endpoint, pin] of mine) {
      const theirs = this.#cache.get(endpoint)?.pin;
      if (theirs) this.#judge(endpoint, pin, theirs);
    }
    log.info(
      { file: file.path, filePins: mine.size, sharedPins: shared.size, written: absent.length, disputes: this.#disputes.size },
      'cluster: host key pins seeded from this member’s file',
    );
  }

  /** Creates every pin of a batch that etcd still lacks in one transaction; a batch that lost a race, one by one. */
  async #createAll(batch: [string, Pin][]): Promise<void> {
    const { client, keys, timeoutMs, member } = this.options;
    const [first, ...rest] = batch;
    if (!first) return;
    let txn = client.if(keys.hostKey(first[0]), 'Create', '==', 0);
    for (const [endpoint] of rest) txn = txn.and(keys.hostKey(endpoint), 'Create', '==', 0);
    this.reads++;
    const res = await this.#etcd(
      txn.then(...batch.map(([endpoint, pin]) => client.put(keys.hostKey(endpoint)).value(sharedValue({ ...pin, by: member })))).commit(),
      timeoutMs,
      'seed the host key pins',
    );
    if (res.succeeded) {
      for (const [endpoint, pin] of batch) this.#cache.set(endpoint, { pin: { ...pin, by: member }, readAt: this.#now() });
      return;
    }
    for (const [endpoint, pin] of batch) await this.#create(endpoint, { ...pin, by: member });
  }

  /** Create if absent; else etcd's pin, which wins. */
  async #create(endpoint: string, pin: SharedPin): Promise<{ pin: SharedPin; created: boolean }> {
    const { client, keys, timeoutMs } = this.options;
    const key = keys.hostKey(endpoint);
    this.reads++;
    const res = await this.#etcd(
      client
        .if(key, 'Create', '==', 0)
        .then(client.put(key).value(sharedValue(pin)))
        .else(client.get(key))
        .commit(),
      timeoutMs,
      'pin the host key',
    );
    const kv = res.succeeded ? undefined : res.responses[0]?.response_range?.kvs[0];
    const inForce = kv ? this.#parse(endpoint, kv) : pin;
    this.#cache.set(endpoint, { pin: inForce, readAt: this.#now() });
    return { pin: inForce, created: res.succeeded };
  }

  async #read(endpoint: string): Promise<SharedPin | undefined> {
    const { client, keys, timeoutMs } = this.options;
    this.reads++;
    const res = await this.#etcd(client.get(keys.hostKey(endpoint)).exec(), timeoutMs, 'read the host key pin');
    const kv = res.kvs[0];
    if (!kv) {
      this.#cache.delete(endpoint);
      return undefined;
    }
    const pin = this.#parse(endpoint, kv);
    this.#cache.set(endpoint, { pin, readAt: this.#now() });
    return pin;
  }

  /** A file pin against etcd's: the same, superseded (the file follows), or a dispute (refused from now on). */
  #judge(endpoint: string, mine: Pin, theirs: SharedPin): 'same' | 'superseded' | 'dispute' {
    const verdict = judgeFilePin(mine, theirs);
    if (verdict === 'superseded') {
      this.options.file.trust(endpoint, theirs.fingerprint, theirs.node ?? mine.node);
      this.#disputes.delete(endpoint);
      this.options.log.warn(
        { endpoint, file: mine.fingerprint, shared: theirs.fingerprint, trustedAt: theirs.pinnedAt },
        'cluster: host key pin in this member’s file was re-trusted by an operator since: the file follows etcd',
      );
    } else if (verdict === 'dispute') {
      const first = !this.#disputes.has(endpoint);
      this.#disputes.set(endpoint, mine);
      if (first)
        this.options.log.error({ endpoint, file: mine.fingerprint, shared: theirs.fingerprint }, this.#disputeText(endpoint, mine, theirs));
    } else this.#disputes.delete(endpoint);
    return verdict;
  }

  /** A disputed endpoint, looked at again: settled when etcd's pin changed (or went), refused while it did not. */
  async #settle(endpoint: string, mine: Pin, theirs: SharedPin | undefined): Promise<Pin> {
    if (!theirs) {
      this.#disputes.delete(endpoint);
      return (await this.#create(endpoint, { ...mine, by: this.options.member })).pin;
    }
    if (this.#judge(endpoint, mine, theirs) !== 'dispute') return theirs;
    throw errors.GC_SSH_HOSTKEY_MISMATCH(this.#disputeText(endpoint, mine, theirs));
  }

  #disputeText(endpoint: string, mine: Pin, theirs: SharedPin): string {
    const node = theirs.node ?? mine.node ?? endpoint;
    return (
      `${endpoint}: this member's pin file ${this.options.file.path} pins ${mine.fingerprint} (pinned ${mine.pinnedAt ?? 'at an unrecorded time'}), ` +
      `but the cluster's pin in etcd is ${theirs.fingerprint} (pinned ${theirs.pinnedAt ?? '?'} by ${theirs.by ?? '?'}): refusing to connect ` +
      `until an operator decides. Check the node's key out of band (ssh-keygen -lf on the node), then: groundcrew hosts trust ${node} --fingerprint SHA256:… --config <the daemon config>`
    );
  }

  #parse(endpoint: string, kv: IKeyValue): SharedPin {
    const pin = parseShared(kv.value.toString());
    if (pin) return pin;
    throw errors.GC_SSH_PINS_UNREADABLE(
      `the cluster's host key pin for ${endpoint} in etcd (${kv.key.toString()}, ${kv.value.length} bytes) is not a pin: refusing SSH to it ` +
        'rather than trusting whatever key it presents now. Check the node key out of band, then re-pin it: ' +
        `groundcrew hosts trust ${endpoint} --fingerprint SHA256:… --config <the daemon config>`,
    );
  }

  /** An etcd call with a deadline; no answer is GC_CLUSTER_FENCED (retried): nothing is sent without the pin. */
  async #etcd<T>(call: Promise<T>, ms: number, what: string): Promise<T> {
    try {
      return await within(call, ms, what);
    } catch (err) {
      throw errors.GC_CLUSTER_FENCED(`host key pins in etcd: could not ${what} (${(err as Error).message}): nothing sent to the node`, err);
    }
  }

  #now(): number {
    return (this.options.now ?? Date.now)();
  }
}
