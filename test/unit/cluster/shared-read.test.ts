// One read shared by the callers that ask before it starts (the budget's slots, issue 19): many callers, one
// read; a caller who asks while a read is out gets the next one (started after it asked), never the older answer.

import { describe, expect, it } from 'vitest';
import { SharedRead } from '../../../src/cluster/shared-read.js';

describe('shared read', () => {
  it('a hundred callers in one turn share one read', async () => {
    let value = 0;
    const read = new SharedRead(async () => ++value);
    const answers = await Promise.all(Array.from({ length: 100 }, () => read.get()));
    expect(new Set(answers)).toEqual(new Set([1]));
    expect(read.count).toBe(1);
  });

  it('a caller asking while a read is out gets a read started after it asked', async () => {
    let value = 0;
    let release: (() => void) | undefined;
    const read = new SharedRead(async () => {
      const v = ++value;
      if (v === 1) await new Promise<void>((r) => (release = r));
      return v;
    });
    const first = read.get();
    await new Promise((r) => setImmediate(r));
    // The first read is out now: these two ask after it started.
    const second = [read.get(), read.get()];
    release?.();
    expect(await first).toBe(1);
    expect(await Promise.all(second)).toEqual([2, 2]);
    expect(read.count).toBe(2);
  });

  it('a read that fails fails its callers, and the next read is tried afresh', async () => {
    let calls = 0;
    const read = new SharedRead(async () => {
      calls++;
      if (calls === 1) throw new Error('no answer from etcd');
      return 'slots';
    });
    await expect(Promise.all([read.get(), read.get()])).rejects.toThrow('no answer from etcd');
    expect(await read.get()).toBe('slots');
    expect(calls).toBe(2);
  });
});
