// "Fetch now" across members: a webhook reaches one member; it writes the request to etcd, and every other
// member, looking at that key every pass, fetches too. Git stays the only source of content: the key only
// says "look now", as the webhook did.

import type { ClusterContext } from './etcd.js';
import { FetchRequestSchema, parseJson } from './etcd-values.js';
import { within } from './membership.js';

export class FetchRelay {
  #seen: string | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: ClusterContext & {
      member: string;
      /** Fetch now, asked by another member. */
      onFetch: (reason: string) => void;
    },
  ) {}

  /** Tells the other members to fetch now (this one already does). */
  announce(reason: string): void {
    const { client, keys, member, timeoutMs, log } = this.options;
    void within(
      client
        .put(keys.fetchNow())
        .value(JSON.stringify({ member, reason, at: new Date().toISOString() }))
        .exec(),
      timeoutMs,
      'relay',
    )
      .then((res) => {
        this.#seen = res.header.revision;
      })
      .catch((err: Error) => log.warn({ err: err.message }, 'cluster: fetch request not relayed to the other members'));
  }

  start(everyMs: number): void {
    this.#timer = setInterval(() => void this.#look(), everyMs);
    this.#timer.unref();
    void this.#look();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  async #look(): Promise<void> {
    const { client, keys, member, timeoutMs, onFetch, rejected } = this.options;
    const res = await within(client.get(keys.fetchNow()).exec(), timeoutMs, 'relay').catch(() => undefined);
    if (!res) return;
    const kv = res.kvs[0];
    // None yet: any request from now on is new.
    if (!kv) {
      this.#seen ??= '0';
      return;
    }
    // The first look finds a request made before this member started: it fetched at start anyway.
    const first = this.#seen === undefined;
    if (kv.mod_revision === this.#seen || (this.#seen !== undefined && BigInt(kv.mod_revision) < BigInt(this.#seen))) return;
    this.#seen = kv.mod_revision;
    if (first) return;
    const text = kv.value.toString();
    const request = parseJson(text, FetchRequestSchema);
    if (!request.ok) {
      // Still a reason to look: a fetch only asks Git, which a planted request cannot change.
      rejected.reject('fetch-request', keys.fetchNow(), text, request.reason);
      onFetch('a request relayed through etcd');
      return;
    }
    rejected.clear(keys.fetchNow());
    if (request.value.member !== member) onFetch(`${request.value.reason}, relayed by ${request.value.member}`);
  }
}
