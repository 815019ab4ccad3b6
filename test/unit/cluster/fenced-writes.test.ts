// Fenced state writes: a write that does not land while this member still holds the node is tried again until
// it lands, so the node's commands (which wait for its state to be recorded) go out once the fence opens. A
// write for a node this member no longer holds is not retried, and its commands stay refused.

import type { Etcd3 } from 'etcd3';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ClusterKeys } from '../../../src/cluster/etcd.js';
import { FencedWrites } from '../../../src/cluster/fenced-writes.js';

/** The three calls FencedWrites makes, on a map; `fail` makes the next N commits throw (etcd past its deadline). */
function fakeEtcd(owner: string) {
  const kv = new Map<string, string>([['/p/owners/n1', owner]]);
  let fail = 0;
  const client = {
    put: (key: string) => ({ value: (value: string) => ({ apply: () => kv.set(key, value) }) }),
    delete: () => ({ key: (key: string) => ({ apply: () => kv.delete(key) }) }),
    if: (key: string, _field: string, _op: string, value: string) => ({
      // biome-ignore lint/suspicious/noThenProperty: etcd3's comparison builder is spelled if().then().commit()
      then: (change: { apply: () => void }) => ({
        commit: async () => {
          if (fail > 0) {
            fail--;
            throw new Error('deadline exceeded');
          }
          const succeeded = kv.get(key) === value;
          if (succeeded) change.apply();
          return { succeeded };
        },
      }),
    }),
  };
  return { kv, client: client as unknown as Etcd3, failNext: (n: number) => (fail = n) };
}

const OWNER = JSON.stringify({ member: 'm1', lease: '7' });
const log = pino({ level: 'silent' });

describe('fenced writes', () => {
  it('a write refused by a closed fence lands once the fence opens, and flush then says recorded', async () => {
    const etcd = fakeEtcd(OWNER);
    let fenced = true;
    const writes = new FencedWrites({
      client: etcd.client,
      keys: new ClusterKeys('/p/'),
      ownerValue: () => {
        // The fence opens after the first refusal: the renewal that was late has come.
        const value = fenced ? undefined : OWNER;
        fenced = false;
        return value;
      },
      holds: () => true,
      timeoutMs: 200,
      log,
    });
    writes.write('n1', '/p/snapshots/n1', '{"state":"waitingForBoot"}');
    expect(await writes.flush('n1')).toBe(true);
    expect(etcd.kv.get('/p/snapshots/n1')).toBe('{"state":"waitingForBoot"}');
  });

  it('a write past etcd deadline is tried again; a newer value queued meanwhile wins', async () => {
    const etcd = fakeEtcd(OWNER);
    etcd.failNext(2);
    const writes = new FencedWrites({
      client: etcd.client,
      keys: new ClusterKeys('/p/'),
      ownerValue: () => OWNER,
      holds: () => true,
      timeoutMs: 200,
      log,
    });
    writes.write('n1', '/p/snapshots/n1', 'a');
    writes.write('n1', '/p/snapshots/n1', 'b');
    expect(await writes.flush('n1')).toBe(true);
    expect(etcd.kv.get('/p/snapshots/n1')).toBe('b');
  });

  it('a node this member no longer holds: not retried, not recorded', async () => {
    const etcd = fakeEtcd(JSON.stringify({ member: 'm2', lease: '9' }));
    const writes = new FencedWrites({
      client: etcd.client,
      keys: new ClusterKeys('/p/'),
      ownerValue: () => undefined,
      holds: () => false,
      timeoutMs: 200,
      log,
    });
    writes.write('n1', '/p/snapshots/n1', 'a');
    expect(await writes.flush('n1')).toBe(false);
    expect(etcd.kv.has('/p/snapshots/n1')).toBe(false);
  });
});
