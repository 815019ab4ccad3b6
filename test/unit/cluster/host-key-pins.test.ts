// The shared pins' rules without etcd (test/ha/host-key-pins-etcd.test.ts has them on a real one): when a member's
// file pin is a dispute with the cluster's and when an operator's re-trust has decided it; a value read from etcd
// is a pin only if it parses as one, whatever bytes are there.

import { describe, expect, it } from 'vitest';
import { judgeFilePin, parseShared, sharedValue } from '../../../src/cluster/host-key-pins.js';

const KEY_A = 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s';
const KEY_B = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';

describe('judgeFilePin', () => {
  const file = { fingerprint: KEY_A, pinnedAt: '2026-01-01T00:00:00.000Z', node: 'win1' };

  it('the same key agrees, whoever pinned it', () => {
    expect(judgeFilePin(file, { fingerprint: KEY_A, by: 'm2' })).toBe('same');
  });

  it('a different key pinned on first use by another member is a dispute (a MITM at one of the two first uses)', () => {
    expect(judgeFilePin(file, { fingerprint: KEY_B, pinnedAt: '2026-06-01T00:00:00.000Z', by: 'm2' })).toBe('dispute');
  });

  it("an operator's re-trust after the file's pin decides it; one before it does not", () => {
    expect(judgeFilePin(file, { fingerprint: KEY_B, pinnedAt: '2026-06-01T00:00:00.000Z', by: 'operator', trusted: true })).toBe(
      'superseded',
    );
    expect(judgeFilePin(file, { fingerprint: KEY_B, pinnedAt: '2025-06-01T00:00:00.000Z', by: 'operator', trusted: true })).toBe('dispute');
    // A file pin of the older shape has no date: any operator decision is later.
    expect(judgeFilePin({ fingerprint: KEY_A }, { fingerprint: KEY_B, pinnedAt: '2025-06-01T00:00:00.000Z', trusted: true })).toBe(
      'superseded',
    );
  });

  it('a date that does not parse decides nothing', () => {
    expect(
      judgeFilePin({ ...file, pinnedAt: 'yesterday' }, { fingerprint: KEY_B, pinnedAt: '2026-06-01T00:00:00.000Z', trusted: true }),
    ).toBe('dispute');
    expect(judgeFilePin(file, { fingerprint: KEY_B, pinnedAt: 'soon', trusted: true })).toBe('dispute');
    expect(judgeFilePin(file, { fingerprint: KEY_B, trusted: true })).toBe('dispute');
  });
});

describe('parseShared', () => {
  it('reads back what is written', () => {
    const pin = { fingerprint: KEY_A, pinnedAt: '2026-01-01T00:00:00.000Z', node: 'win1', by: 'operator', trusted: true };
    expect(parseShared(sharedValue(pin))).toEqual(pin);
    expect(parseShared(sharedValue({ fingerprint: KEY_B, by: 'm1' }))).toEqual({ fingerprint: KEY_B, by: 'm1' });
  });

  it.each([
    ['not JSON', '{"fingerprint":'],
    ['a bare fingerprint string is not a shared pin', JSON.stringify('nope')],
    ['no fingerprint', JSON.stringify({ by: 'm1' })],
    ['a malformed fingerprint', JSON.stringify({ fingerprint: 'SHA256:short' })],
    ['a non-string member', JSON.stringify({ fingerprint: KEY_A, by: 7 })],
    ['trusted not a boolean', JSON.stringify({ fingerprint: KEY_A, trusted: 'yes' })],
    ['an array', '[]'],
  ])('refuses %s', (_, text) => {
    expect(parseShared(text)).toBeUndefined();
  });
});
