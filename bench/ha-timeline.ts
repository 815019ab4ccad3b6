// A failover's timeline as etcd saw it (bench/ha-scale.ts): the killed member's key and candidate key going
// (its lease expired), the new leader, the revision in force written, the chosen node's owner key, snapshot,
// status and disruption slot, each stamped when the benchmark's watch received it. With the hosts' record of
// the node's commands this says where a failover's time went (issue 19: one took 49.2 s, the lease 13.3 s).

import { Etcd3, type IKeyValue, type Watcher } from 'etcd3';

export interface TimelineEvent {
  /** Date.now() when the watch delivered it. */
  at: number;
  what: string;
}

/** The leader among the members now: the oldest candidate key's value (etcd's election protocol). */
export async function leaderOf(endpoints: string[], prefix: string): Promise<string | undefined> {
  const client = new Etcd3({ hosts: endpoints });
  try {
    const res = await client.getAll().prefix(`${prefix}election/leader/`).sort('Create', 'Ascend').limit(1).exec();
    return res.kvs[0]?.value.toString();
  } finally {
    client.close();
  }
}

/** What a status or slot record says, in a few words (the rest of it is noise here). */
function summary(key: string, value: string): string {
  try {
    const v = JSON.parse(value) as Record<string, unknown>;
    if (key.includes('/status/')) {
      const error = (v.lastError as { code?: string } | undefined)?.code;
      return `state ${String(v.state)}${v.phase ? ` phase ${String(v.phase)}` : ''}${error ? ` (${error}${v.waiting ? `: ${String(v.waiting).slice(0, 80)}` : ''})` : ''}`;
    }
    if (key.endsWith('/revision')) return `sha ${String(v.sha).slice(0, 12)} by ${String(v.leader)}`;
    if ('member' in v) return `${String(v.member)}${'node' in v ? ` for ${String(v.node)}` : ''}`;
    return `${value.length} bytes`;
  } catch {
    return value.slice(0, 40);
  }
}

export class FailoverTimeline {
  readonly events: TimelineEvent[] = [];
  readonly #watchers: Watcher[] = [];
  #stopped = false;

  private constructor(private readonly client: Etcd3) {}

  /** Watches what decides `node`'s failover under `prefix`; call `stop()` once done. */
  static async start(endpoints: string[], prefix: string, node: string): Promise<FailoverTimeline> {
    const timeline = new FailoverTimeline(new Etcd3({ hosts: endpoints }));
    const { client } = timeline;
    const watches = [
      client.watch().prefix(`${prefix}members/`),
      client.watch().prefix(`${prefix}election/`),
      client.watch().key(`${prefix}revision`),
      client.watch().key(`${prefix}owners/${node}`),
      client.watch().key(`${prefix}snapshots/${node}`),
      client.watch().key(`${prefix}status/${node}`),
      client.watch().prefix(`${prefix}budget/`),
    ];
    // The budget's slots, only those of this node (every node of the commit takes one).
    const slots = new Map<string, boolean>();
    const ours = (kv: IKeyValue, put: boolean) => {
      const key = kv.key.toString();
      if (!key.includes('/budget/')) return true;
      if (put) slots.set(key, kv.value.toString().includes(`"node":"${node}"`));
      return slots.get(key) === true;
    };
    for (const builder of watches) {
      const watcher = await builder.create();
      const short = (kv: IKeyValue) => kv.key.toString().slice(prefix.length);
      watcher.on('put', (kv: IKeyValue) => {
        if (ours(kv, true)) timeline.mark(`${short(kv)} put: ${summary(kv.key.toString(), kv.value.toString())}`);
      });
      watcher.on('delete', (kv: IKeyValue) => {
        if (ours(kv, false)) timeline.mark(`${short(kv)} deleted`);
      });
      timeline.#watchers.push(watcher);
    }
    return timeline;
  }

  mark(what: string, at = Date.now()): void {
    this.events.push({ at, what });
  }

  /** Each event as `+ms what`, from `zero` (the kill), in order. */
  lines(zero: number): string[] {
    return [...this.events].sort((a, b) => a.at - b.at).map((e) => `${String(e.at - zero).padStart(7)} ms  ${e.what}`);
  }

  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await Promise.all(this.#watchers.map((w) => w.cancel().catch(() => undefined)));
    this.client.close();
  }
}
