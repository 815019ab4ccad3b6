// Host key pins on file: a pin file that cannot be read or parsed refuses every check and is never rewritten;
// writes are atomic; older files (fingerprint only) still read; a malformed fingerprint is never pinned. And
// checkHostKey on any PinStore: a cached pin that differs is read again once; the first pin stored wins.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkHostKey, HostKeyStore, type Pin, type PinStore } from '../../../src/dataplane/host-keys.js';
import { errors } from '../../../src/errors.js';

const KEY_A = 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s';
const KEY_B = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';
const fileIn = () => join(mkdtempSync(join(tmpdir(), 'gc-pins-')), 'known-hosts.json');
const at = () => new Date('2025-01-02T03:04:05.000Z');

describe('HostKeyStore', () => {
  it('pins on first use with node and time, refuses a changed key, and leaves no temp file', () => {
    const file = fileIn();
    const store = new HostKeyStore(file, at);
    expect(store.check('192.0.2.10:22', KEY_A, 'win1')).toEqual({ ok: true, pinnedNow: true });
    expect(new HostKeyStore(file).check('192.0.2.10:22', KEY_A)).toEqual({ ok: true, pinnedNow: false });
    expect(new HostKeyStore(file).check('192.0.2.10:22', KEY_B)).toEqual({ ok: false, pinned: KEY_A, presented: KEY_B });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      '192.0.2.10:22': { fingerprint: KEY_A, pinnedAt: '2025-01-02T03:04:05.000Z', node: 'win1' },
    });
    expect(readdirSync(join(file, '..'))).toEqual(['known-hosts.json']);
  });

  it('reads a file of the older shape (fingerprint only)', () => {
    const file = fileIn();
    writeFileSync(file, JSON.stringify({ '192.0.2.10:22': KEY_A }));
    expect(new HostKeyStore(file).check('192.0.2.10:22', KEY_B)).toEqual({ ok: false, pinned: KEY_A, presented: KEY_B });
  });

  it.each([
    ['truncated', (whole: string) => whole.slice(0, 30), /is not valid JSON/],
    ['not an object', () => '[]', /is not a JSON object/],
    [
      'a pin without a fingerprint',
      () => JSON.stringify({ '192.0.2.10:22': { pinnedAt: 'x' } }),
      /holds "192\.0\.2\.10:22" without a SHA256 fingerprint/,
    ],
  ])('a pin file %s refuses every host, re-pins nothing, and keeps the file byte for byte', (_, damage, why) => {
    const file = fileIn();
    new HostKeyStore(file).check('192.0.2.10:22', KEY_A, 'win1');
    const damaged = damage(readFileSync(file, 'utf8'));
    writeFileSync(file, damaged);
    const store = new HostKeyStore(file);
    for (const attempt of [
      () => store.check('192.0.2.10:22', KEY_B),
      () => store.check('192.0.2.99:22', KEY_B),
      () => store.trust('192.0.2.10:22', KEY_B),
    ]) {
      expect(attempt).toThrow(why);
      try {
        attempt();
      } catch (err) {
        expect(err).toMatchObject({ code: errors.GC_SSH_PINS_UNREADABLE.code, retryable: false });
        expect((err as Error).message).toMatch(/restore it from a backup.*groundcrew hosts trust NODE --fingerprint/);
      }
    }
    expect(readFileSync(file, 'utf8')).toBe(damaged);
  });

  it('a missing file is no pins yet (first use)', () => {
    expect(new HostKeyStore(fileIn()).pins().size).toBe(0);
  });

  it('trust re-pins, keeping the node name; a malformed fingerprint is refused and nothing written', () => {
    const file = fileIn();
    new HostKeyStore(file).check('192.0.2.10:22', KEY_A, 'win1');
    const before = readFileSync(file, 'utf8');
    for (const bad of ['SHA256:short', `${KEY_B}=`, 'MD5:aa:bb', KEY_B.replace('SHA256:', '')]) {
      expect(() => new HostKeyStore(file).trust('192.0.2.10:22', bad)).toThrow(/expected a fingerprint such as SHA256:/);
    }
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(new HostKeyStore(file, at).trust('192.0.2.10:22', KEY_B)).toEqual({
      fingerprint: KEY_B,
      pinnedAt: at().toISOString(),
      node: 'win1',
    });
    expect(new HostKeyStore(file).check('192.0.2.10:22', KEY_B)).toEqual({ ok: true, pinnedNow: false });
  });
});

/** A store as a cluster member sees one: a cache in front of the stored pins, which another process may change. */
function cachedStore(stored: Map<string, Pin>) {
  const cache = new Map<string, Pin>();
  const calls: string[] = [];
  const store: PinStore = {
    async lookup(endpoint, fresh) {
      calls.push(fresh ? 'fresh' : 'cached');
      if (!fresh && cache.has(endpoint)) return cache.get(endpoint);
      const pin = stored.get(endpoint);
      if (pin) cache.set(endpoint, pin);
      else cache.delete(endpoint);
      return pin;
    },
    async pinIfAbsent(endpoint, pin) {
      calls.push('pin');
      const first = stored.get(endpoint);
      if (first) return { pin: first, created: false };
      stored.set(endpoint, pin);
      return { pin, created: true };
    },
  };
  return { store, calls, cache };
}

describe('checkHostKey', () => {
  const E = '192.0.2.10:22';

  it('a cached pin that differs is read again once: a re-trust since reaches this process, a changed key is still refused', async () => {
    const stored = new Map<string, Pin>([[E, { fingerprint: KEY_A }]]);
    const { store, calls } = cachedStore(stored);
    expect(await checkHostKey(store, E, KEY_A)).toEqual({ ok: true, pinnedNow: false });
    // An operator re-trusts the node (a reinstall) in the shared store: the cache still says KEY_A.
    stored.set(E, { fingerprint: KEY_B });
    calls.length = 0;
    expect(await checkHostKey(store, E, KEY_B)).toEqual({ ok: true, pinnedNow: false });
    expect(calls).toEqual(['cached', 'fresh']);
    // The old key now presented (a MITM with the old host's key): refused against the fresh pin.
    expect(await checkHostKey(store, E, KEY_A)).toEqual({ ok: false, pinned: KEY_B, presented: KEY_A });
  });

  it('no pin: the presented key is pinned; when another process pinned first, its pin is the one checked', async () => {
    const alone = cachedStore(new Map());
    expect(await checkHostKey(alone.store, E, KEY_A, 'win1', at())).toEqual({ ok: true, pinnedNow: true });
    // Someone else pinned between this process's lookup and its pin: lookup saw nothing, pinIfAbsent finds KEY_A.
    const stored = new Map<string, Pin>();
    const raced: PinStore = {
      lookup: async () => undefined,
      pinIfAbsent: async (endpoint, pin) => {
        stored.set(endpoint, { fingerprint: KEY_A });
        return { pin: stored.get(endpoint) ?? pin, created: false };
      },
    };
    expect(await checkHostKey(raced, E, KEY_B)).toEqual({ ok: false, pinned: KEY_A, presented: KEY_B });
  });

  it('the file store is a PinStore: pinIfAbsent keeps the first pin; a damaged file refuses lookups', async () => {
    const file = fileIn();
    const store = new HostKeyStore(file, at);
    expect(await store.pinIfAbsent(E, { fingerprint: KEY_A, node: 'win1' })).toEqual({
      pin: { fingerprint: KEY_A, node: 'win1' },
      created: true,
    });
    expect(await store.pinIfAbsent(E, { fingerprint: KEY_B })).toEqual({ pin: { fingerprint: KEY_A, node: 'win1' }, created: false });
    expect(await checkHostKey(new HostKeyStore(file), E, KEY_B)).toEqual({ ok: false, pinned: KEY_A, presented: KEY_B });
    writeFileSync(file, '{');
    await expect(checkHostKey(new HostKeyStore(file), E, KEY_A)).rejects.toMatchObject({ code: errors.GC_SSH_PINS_UNREADABLE.code });
  });
});
