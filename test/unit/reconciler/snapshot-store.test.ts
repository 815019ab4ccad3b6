// The snapshot store: atomic writes, and an unreadable snapshot set aside rather than trusted or fatal.

import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../../src/reconciler/snapshot-store.js';

describe('SnapshotStore', () => {
  it('saves and loads, leaving no temp files behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-snap-'));
    const store = new SnapshotStore(dir);
    store.save('win1', { value: { rebooting: 'waitingForBoot' }, context: { previousBootId: 'b1' } });
    expect(store.load('win1')).toEqual({ value: { rebooting: 'waitingForBoot' }, context: { previousBootId: 'b1' } });
    expect(readdirSync(dir)).toEqual(['win1.json']);
    expect(store.nodes()).toEqual(['win1']);
    expect(store.load('nobody')).toBeUndefined();
  });

  it('sets a corrupt snapshot aside and says so; the node then starts over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-snap-'));
    const said: string[] = [];
    const store = new SnapshotStore(dir, (m) => said.push(m));
    writeFileSync(join(dir, 'win1.json'), '{"value": {"rebooti');
    expect(store.load('win1')).toBeUndefined();
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^win1\.json\.corrupt-\d+$/)]);
    expect(said[0]).toMatch(/snapshot of win1 was unreadable; set aside as .*win1\.json\.corrupt-\d+, the node starts over/);
  });
});
