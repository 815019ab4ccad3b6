// The daemon's heap growth setting: the default, the operator's override, and what is refused.

import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, tuneDaemonHeap } from '../../../src/cli/daemon-heap.js';

describe('tuneDaemonHeap', () => {
  it('caps the growth at the default unless GROUNDCREW_HEAP_GROWING_PERCENT says otherwise; 0 leaves V8 its own', () => {
    expect(tuneDaemonHeap(undefined)).toBe(HEAP_GROWING_PERCENT);
    expect(tuneDaemonHeap('')).toBe(HEAP_GROWING_PERCENT);
    expect(tuneDaemonHeap('30')).toBe(30);
    expect(tuneDaemonHeap('0')).toBe(0);
  });

  it('refuses what is not a whole percent from 0 to 1000, naming the variable and the value', () => {
    for (const bad of ['-1', '1.5', 'abc', '1001', '20 --allow-natives-syntax'])
      expect(() => tuneDaemonHeap(bad)).toThrow(/GROUNDCREW_HEAP_GROWING_PERCENT .* not "/);
  });
});
