// The failure budget's record across members (issue 19), on a real etcd: the leader deletes the records of
// revisions no node is on any more, in transactions of 64 deletes, after a grace; it keeps those of the revision
// in force and of any revision a node is still on (a commit that does not touch a node leaves it there, and that
// revision's budget still governs it); a member that does not lead, or does not yet know every node's revision,
// deletes nothing.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKeys, etcdClient } from '../../src/cluster/etcd.js';
import { RejectedValues } from '../../src/cluster/etcd-values.js';
import type { FencedWrites } from '../../src/cluster/fenced-writes.js';
import { desiredRevisions, GlobalFailures } from '../../src/cluster/global-failures.js';
import { EtcdCluster } from './etcd-cluster.js';

const log = pino({ level: 'silent' });
/** Revisions as members write them: full object names (a record under another name is refused, etcd-values.ts). */
const REV = { A: 'a'.repeat(40), B: 'b'.repeat(40), C: 'c'.repeat(40), OLD: 'd'.repeat(40) };
const rejected = new RejectedValues(log);

describe('failure records of old revisions on a real etcd', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-fr-'));
  let etcd: EtcdCluster;
  let client: ReturnType<typeof etcdClient>;
  beforeAll(async () => {
    etcd = new EtcdCluster(join(dir, 'etcd'), 24170, 1);
    await etcd.start();
    client = etcdClient({ endpoints: etcd.endpoints }, 2000);
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A member's record, its nodes' desired revisions as its status page shows them, leading or not. */
  function member(prefix: string, desired: Map<string, string | undefined>, opts: { leads?: boolean; graceMs?: number } = {}) {
    const clock = { now: 0 };
    const failures = new GlobalFailures({
      client,
      keys: new ClusterKeys(prefix),
      writes: {} as FencedWrites,
      timeoutMs: 2000,
      log,
      rejected,
      onChange: () => undefined,
      retire: {
        leads: () => opts.leads ?? true,
        inForce: () => REV.C,
        needed: () =>
          desiredRevisions([...desired.keys()], {
            get: (n) => (desired.get(n) ? ({ name: n, desiredRevision: desired.get(n) } as never) : undefined),
          }),
        graceMs: opts.graceMs ?? 0,
        now: () => clock.now,
      },
    });
    return { failures, clock };
  }

  async function record(prefix: string, revision: string, node: string) {
    await client.put(`${prefix}failures/${revision}/${node}`).value(JSON.stringify({ node, revision, at: new Date().toISOString() }));
  }
  const keysUnder = async (prefix: string) => (await client.getAll().prefix(`${prefix}failures/`).keys()).sort();

  it('deletes the records of a revision no node is on, keeps the one in force and one a node is still on', {
    timeout: 30_000,
  }, async () => {
    const p = '/fr1/';
    for (const [r, n] of [
      [REV.A, 'x'],
      [REV.A, 'y'],
      [REV.B, 'z'],
      [REV.C, 'w'],
    ])
      await record(p, r as string, n as string);
    // n2 was not touched by rev-c: it is still on rev-b, whose rollout is halted by z's failure.
    const desired = new Map([
      ['n1', REV.C],
      ['n2', REV.B],
    ]);
    const { failures } = member(p, desired);
    await failures.refresh();
    expect(await keysUnder(p)).toEqual([`${p}failures/${REV.B}/z`, `${p}failures/${REV.C}/w`]);
    expect(failures.list(REV.A)).toEqual([]);
    expect(failures.list(REV.B)).toEqual(['z']);
    expect(failures.retired).toBe(2);
    // n2 moves on to rev-c: rev-b is needed by nobody now.
    desired.set('n2', REV.C);
    await failures.refresh();
    expect(await keysUnder(p)).toEqual([`${p}failures/${REV.C}/w`]);
  });

  it('deletes nothing when not leading, or while some node has no known revision, or before the grace', { timeout: 30_000 }, async () => {
    const p = '/fr2/';
    await record(p, REV.A, 'x');
    const desired = new Map<string, string | undefined>([['n1', REV.C]]);
    await member(p, desired, { leads: false }).failures.refresh();
    const unknown = new Map<string, string | undefined>([
      ['n1', REV.C],
      ['n2', undefined],
    ]);
    await member(p, unknown).failures.refresh();
    expect(await keysUnder(p)).toEqual([`${p}failures/${REV.A}/x`]);

    const { failures, clock } = member(p, desired, { graceMs: 3000 });
    await failures.refresh();
    clock.now = 2999;
    await failures.refresh();
    expect(await keysUnder(p)).toEqual([`${p}failures/${REV.A}/x`]);
    clock.now = 3000;
    await failures.refresh();
    expect(await keysUnder(p)).toEqual([]);
  });

  it('300 records of an old revision go in transactions of at most 64 deletes, none left', { timeout: 30_000 }, async () => {
    const p = '/fr3/';
    await Promise.all(Array.from({ length: 300 }, (_, i) => record(p, REV.OLD, `node-${i}`)));
    await record(p, REV.C, 'node-0');
    const txns: number[] = [];
    const spied = new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== 'if') return Reflect.get(target, prop, receiver);
        return (...args: Parameters<typeof client.if>) => {
          const builder = target.if(...args);
          let compares = 1;
          const wrap = (b: typeof builder): typeof builder =>
            new Proxy(b, {
              get(t, q, r) {
                if (q === 'and')
                  return (...a: Parameters<typeof b.and>) => {
                    compares++;
                    return wrap(t.and(...a));
                  };
                if (q === 'then')
                  return (...ops: Parameters<typeof b.then>) => {
                    txns.push(compares + ops.length);
                    return t.then(...ops);
                  };
                return Reflect.get(t, q, r);
              },
            });
          return wrap(builder);
        };
      },
    });
    const failures = new GlobalFailures({
      client: spied,
      keys: new ClusterKeys(p),
      writes: {} as FencedWrites,
      timeoutMs: 2000,
      log,
      rejected,
      onChange: () => undefined,
      retire: { leads: () => true, inForce: () => REV.C, needed: () => new Set([REV.C]), graceMs: 0 },
    });
    await failures.refresh();
    expect(await keysUnder(p)).toEqual([`${p}failures/${REV.C}/node-0`]);
    expect(failures.retired).toBe(300);
    expect(txns).toEqual([128, 128, 128, 128, 88]);
  });
});
