// What a member accepts of a value read from etcd (cluster/etcd-values.ts): the shapes, and one log line per
// change of a key's refused value, counted by kind.

import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { InForceSchema, OwnerSchema, parseJson, parseStatus, RejectedValues } from '../../../src/cluster/etcd-values.js';

const status = {
  name: 'compute-l1',
  address: '10.0.0.1',
  os: 'linux',
  roles: ['vrouter'],
  state: 'verified',
  phases: ['vrouter'],
  mode: 'autocorrect',
  desiredRevision: 'a'.repeat(40),
  lastAppliedRevision: 'a'.repeat(40),
  desiredVersions: {},
  observedVersions: {},
  conditions: [{ type: 'Ready', status: 'True', reason: 'Verified', message: '' }],
  rebootCount: 0,
  drift: false,
  since: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('values read from etcd', () => {
  it('a status as an owner writes it parses; a wrong shape, an unknown field or a state no machine has does not', () => {
    expect(parseStatus(JSON.stringify(status))).toMatchObject({ ok: true });
    expect(parseStatus(JSON.stringify({ ...status, roles: 7 }))).toEqual({ ok: false, reason: expect.stringMatching(/^roles: /) });
    expect(parseStatus(JSON.stringify({ ...status, extra: 1 }))).toMatchObject({ ok: false });
    expect(parseStatus(JSON.stringify({ ...status, state: 'applying' }))).toMatchObject({ ok: false });
    expect(parseStatus('not json {')).toEqual({ ok: false, reason: 'not JSON' });
  });

  it('the revision in force is a full object name, never an expression git would resolve', () => {
    const record = { leader: 'm1', lease: '7587', at: 'now' };
    expect(parseJson(JSON.stringify({ ...record, sha: 'b'.repeat(40) }), InForceSchema).ok).toBe(true);
    expect(parseJson(JSON.stringify({ ...record, sha: 'c'.repeat(64) }), InForceSchema).ok).toBe(true);
    for (const sha of ['refs/remotes/origin/main~000000000000001', 'B'.repeat(40), 'b'.repeat(39), 'HEAD'])
      expect(parseJson(JSON.stringify({ ...record, sha }), InForceSchema).ok, sha).toBe(false);
    expect(parseJson(JSON.stringify({ sha: 'b'.repeat(40), leader: 'm1', at: 'now' }), InForceSchema).ok).toBe(false);
  });

  it('an owner names a member and a lease id', () => {
    expect(parseJson('{"member":"m1","lease":"7587"}', OwnerSchema).ok).toBe(true);
    expect(parseJson('{"member":"m1","lease":"0"}', OwnerSchema).ok).toBe(false);
    expect(parseJson('{"member":"../m1","lease":"7587"}', OwnerSchema).ok).toBe(false);
  });

  it('a refused value is said once per change of the key, counted by kind, its value never logged', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const rejected = new RejectedValues(pino({ level: 'info' }, sink));
    rejected.reject('status', '/p/status/a', 'secret-bytes-1', 'not JSON');
    rejected.reject('status', '/p/status/a', 'secret-bytes-1', 'not JSON');
    rejected.reject('owner', '/p/owners/a', 'x', 'not JSON');
    rejected.reject('status', '/p/status/a', 'secret-bytes-2', 'not JSON');
    rejected.clear('/p/status/a');
    rejected.reject('status', '/p/status/a', 'secret-bytes-2', 'not JSON');
    expect(lines).toHaveLength(4);
    expect(rejected.counts()).toEqual({ status: 3, owner: 1 });
    expect(lines.join('')).not.toContain('secret-bytes');
  });
});
