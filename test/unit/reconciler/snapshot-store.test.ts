// The snapshot store: atomic writes, and an unreadable snapshot set aside rather than trusted or fatal.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../../src/reconciler/snapshot-store.js';

describe('SnapshotStore', () => {
  it('saves and loads, leaving no temp files behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-snap-'));
    const store = new SnapshotStore(dir);
    store.save('win1', { value: { rebooting: 'waitingForBoot' }, context: { previousBootId: 'b1' } });
    // Before its write lands, the store answers with what was saved.
    expect(store.load('win1')).toEqual({ saved: { value: { rebooting: 'waitingForBoot' }, context: { previousBootId: 'b1' } } });
    await store.flush('win1');
    expect(readdirSync(dir)).toEqual(['win1.json']);
    expect(JSON.parse(readFileSync(join(dir, 'win1.json'), 'utf8'))).toEqual({
      value: { rebooting: 'waitingForBoot' },
      context: { previousBootId: 'b1' },
    });
    expect(new SnapshotStore(dir).load('win1').saved).toEqual({
      value: { rebooting: 'waitingForBoot' },
      context: { previousBootId: 'b1' },
    });
    expect(store.nodes()).toEqual(['win1']);
    expect(store.load('nobody')).toEqual({});
  });

  it('sets an unparsable snapshot aside and says so; the node then starts over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-snap-'));
    const said: string[] = [];
    const store = new SnapshotStore(dir, (m) => said.push(m));
    writeFileSync(join(dir, 'win1.json'), '{"value": {"rebooti');
    const loaded = store.load('win1');
    expect(loaded.saved).toBeUndefined();
    expect(loaded.setAside?.reason).toMatch(/^unparsable JSON/);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^win1\.json\.corrupt-\d+$/)]);
    expect(loaded.setAside?.file).toBe(join(dir, readdirSync(dir)[0] as string));
    expect(said[0]).toMatch(
      /snapshot of win1 cannot be restored \(unparsable JSON.*\); set aside as .*win1\.json\.corrupt-\d+, the node starts over/,
    );
  });

  it('saves made while one is being written end with the newest on disk; a remove comes after them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-snap-'));
    const store = new SnapshotStore(dir);
    for (let i = 1; i <= 50; i++) store.save('n1', { step: i });
    await store.flush('n1');
    expect(readFileSync(join(dir, 'n1.json'), 'utf8')).toBe('{"step":50}');
    store.save('n1', { step: 51 });
    store.remove('n1');
    expect(store.load('n1')).toEqual({});
    await store.flushAll();
    expect(readdirSync(dir)).toEqual([]);
    store.save('n1', { step: 52 });
    await store.flushAll();
    expect(store.load('n1')).toEqual({ saved: { step: 52 } });
  });

  it('setAside keeps the bytes it moves', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-snap-'));
    const store = new SnapshotStore(dir);
    writeFileSync(join(dir, 'win1.json'), '{"version":0}');
    const aside = store.setAside('win1', 'expected snapshot version 1, found version 0');
    expect(readFileSync(aside, 'utf8')).toBe('{"version":0}');
    expect(store.nodes()).toEqual([]);
  });
});
