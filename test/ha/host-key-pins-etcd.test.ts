// Host key pins shared through etcd (issue 19), on a real etcd: two members' stores agree on every pin (the first
// key seen wins, the other member's different key is refused), a member's pin file seeds etcd, a file pin that
// disagrees with etcd's is refused loudly and overwritten neither way, and an operator's `hosts trust` decides it
// for every member (a member's cached pin is read again on a mismatch).

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterKeys, etcdClient } from '../../src/cluster/etcd.js';
import { SharedHostKeyPins } from '../../src/cluster/host-key-pins.js';
import { checkHostKey, HostKeyStore, type Pin } from '../../src/dataplane/host-keys.js';
import { errors } from '../../src/errors.js';
import { EtcdCluster } from './etcd-cluster.js';

const KEY_A = 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s';
const KEY_B = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';

describe('host key pins shared through a real etcd', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-pins-etcd-'));
  let etcd: EtcdCluster;
  const clients: ReturnType<typeof etcdClient>[] = [];
  beforeAll(async () => {
    etcd = new EtcdCluster(join(dir, 'etcd'), 24150, 1);
    await etcd.start();
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A member's store on `prefix`, its pin file holding `filePins`; `errorsLogged` collects its error logs. */
  function member(prefix: string, name: string, filePins: Record<string, Pin | string> = {}) {
    const state = join(dir, prefix.replaceAll('/', ''), name);
    mkdirSync(state, { recursive: true });
    const path = join(state, 'known-hosts.json');
    if (Object.keys(filePins).length > 0) writeFileSync(path, JSON.stringify(filePins));
    const client = etcdClient({ endpoints: etcd.endpoints }, 2000);
    clients.push(client);
    const errorsLogged: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void errorsLogged.push(line) });
    const file = new HostKeyStore(path);
    const pins = new SharedHostKeyPins({ client, keys: new ClusterKeys(prefix), member: name, file, timeoutMs: 2000, log });
    return { pins, file, path, client, errorsLogged };
  }

  it('two members agree: the first key seen is pinned for both, the other key refused by the second', { timeout: 30_000 }, async () => {
    const m1 = member('/pins1/', 'm1');
    const m2 = member('/pins1/', 'm2');
    expect(await checkHostKey(m1.pins, '192.0.2.10:22', KEY_A, 'win1')).toEqual({ ok: true, pinnedNow: true });
    expect(await checkHostKey(m2.pins, '192.0.2.10:22', KEY_B, 'win1')).toEqual({ ok: false, pinned: KEY_A, presented: KEY_B });
    expect(await checkHostKey(m2.pins, '192.0.2.10:22', KEY_A, 'win1')).toEqual({ ok: true, pinnedNow: false });

    // Both members meet 20 new hosts at once, each presented a different key: one pin per host, the same for both.
    const hosts = Array.from({ length: 20 }, (_, i) => `192.0.2.${100 + i}:22`);
    const verdicts = await Promise.all(
      hosts.flatMap((h) => [
        checkHostKey(m1.pins, h, KEY_A).then((v) => ['m1', h, v] as const),
        checkHostKey(m2.pins, h, KEY_B).then((v) => ['m2', h, v] as const),
      ]),
    );
    for (const h of hosts) {
      const both = verdicts.filter(([, host]) => host === h).map(([, , v]) => v);
      expect(both.filter((v) => v.ok)).toHaveLength(1);
      expect(both.filter((v) => v.ok && v.pinnedNow)).toHaveLength(1);
      const a = await m1.pins.lookup(h, true);
      expect(await m2.pins.lookup(h, true)).toEqual(a);
    }
    // In cluster mode a member's pin file is a seed only: pins taken since live in etcd.
    expect(() => readFileSync(m1.path)).toThrow();
  });

  it("a member's file seeds etcd (in transactions of 64), and the other member checks against those pins", {
    timeout: 30_000,
  }, async () => {
    const many: Record<string, Pin> = {};
    for (let i = 0; i < 150; i++)
      many[`198.51.100.${i}:22`] = { fingerprint: i % 2 ? KEY_A : KEY_B, pinnedAt: '2026-01-01T00:00:00.000Z', node: `n${i}` };
    many['198.51.100.200:22'] = KEY_A as unknown as Pin; // the older file shape: a bare fingerprint
    const m1 = member('/pins2/', 'm1', many as Record<string, Pin>);
    const m2 = member('/pins2/', 'm2');
    await m1.pins.seed();
    // One read of every pin, then 3 batches for 151 pins.
    expect(m1.pins.reads).toBe(4);
    const { pins } = await m2.pins.all();
    expect(pins.size).toBe(151);
    expect(pins.get('198.51.100.7:22')).toMatchObject({ fingerprint: KEY_A, node: 'n7', by: 'm1' });
    expect(await checkHostKey(m2.pins, '198.51.100.7:22', KEY_B)).toEqual({ ok: false, pinned: KEY_A, presented: KEY_B });
    expect(await checkHostKey(m2.pins, '198.51.100.200:22', KEY_A)).toEqual({ ok: true, pinnedNow: false });
  });

  it('a file pin that disagrees with etcd is refused loudly, left as it is on both sides; an operator re-trust settles it', {
    timeout: 30_000,
  }, async () => {
    const E = '203.0.113.5:22';
    const m1 = member('/pins3/', 'm1', { [E]: { fingerprint: KEY_A, pinnedAt: '2026-01-01T00:00:00.000Z', node: 'win5' } });
    await m1.pins.seed();
    // m2 ran alone before and pinned another key for the same host (one of the two first uses met an impostor).
    const m2 = member('/pins3/', 'm2', { [E]: { fingerprint: KEY_B, pinnedAt: '2026-02-01T00:00:00.000Z', node: 'win5' } });
    const fileBefore = readFileSync(m2.path, 'utf8');
    for (const presented of [KEY_A, KEY_B]) {
      const refused = await checkHostKey(m2.pins, E, presented).catch((err: unknown) => err);
      expect(refused).toMatchObject({ code: errors.GC_SSH_HOSTKEY_MISMATCH.code });
      expect((refused as Error).message).toContain(`pins ${KEY_B}`);
      expect((refused as Error).message).toContain(`pin in etcd is ${KEY_A}`);
      expect((refused as Error).message).toContain('groundcrew hosts trust win5 --fingerprint');
    }
    expect(m2.errorsLogged.filter((l) => l.includes('"level":50') && l.includes('refusing to connect'))).toHaveLength(1);
    expect((await m1.pins.lookup(E, true))?.fingerprint).toBe(KEY_A);
    expect(readFileSync(m2.path, 'utf8')).toBe(fileBefore);

    // The operator checks the node's key out of band: KEY_B is right (reinstalled), and says so once, in etcd.
    const operator = member('/pins3/', 'cli');
    await operator.pins.trust(E, { fingerprint: KEY_B, pinnedAt: new Date().toISOString(), node: 'win5' });
    // m2's dispute is settled (its file follows etcd); m1's cached KEY_A is read again when the node presents KEY_B.
    expect(await checkHostKey(m2.pins, E, KEY_B)).toEqual({ ok: true, pinnedNow: false });
    expect(JSON.parse(readFileSync(m2.path, 'utf8'))[E]).toMatchObject({ fingerprint: KEY_B });
    expect(await checkHostKey(m1.pins, E, KEY_B)).toEqual({ ok: true, pinnedNow: false });
    expect(await checkHostKey(m1.pins, E, KEY_A)).toEqual({ ok: false, pinned: KEY_B, presented: KEY_A });
    // A member starting later with the old file pin: the operator's decision is newer than that pin.
    const m3 = member('/pins3/', 'm3', { [E]: { fingerprint: KEY_A, pinnedAt: '2026-01-01T00:00:00.000Z' } });
    expect(await checkHostKey(m3.pins, E, KEY_B)).toEqual({ ok: true, pinnedNow: false });
  });

  it('a value in etcd that is not a pin refuses that host only, and is never taken for "no pin yet"', { timeout: 30_000 }, async () => {
    const m1 = member('/pins4/', 'm1', { '192.0.2.1:22': { fingerprint: KEY_A } });
    await m1.client.put('/pins4/hostkeys/192.0.2.9:22').value('{"fingerprint":"SHA256:x"}');
    await expect(checkHostKey(m1.pins, '192.0.2.9:22', KEY_B)).rejects.toMatchObject({ code: errors.GC_SSH_PINS_UNREADABLE.code });
    expect(await m1.client.get('/pins4/hostkeys/192.0.2.9:22').string()).toBe('{"fingerprint":"SHA256:x"}');
    expect(await checkHostKey(m1.pins, '192.0.2.1:22', KEY_A)).toEqual({ ok: true, pinnedNow: false });
  });
});
