// A node's history and run reports as written to etcd (issue 19 item 4): what is written reads back the same;
// a value stays under its cap by leaving out the oldest records first; and bytes read from etcd that are not
// such a value (another writer's, broken, a deflate bomb, the wrong shape, another node's) are reported as
// unreadable, never thrown.

import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DETAIL_MAX_BYTES, decodeDetail, encodeDetail } from '../../../src/cluster/node-detail.js';
import {
  type NodeDetail,
  type PackedDetail,
  type PhaseReport,
  type RunReport,
  StatusStore,
  type TransitionRecord,
} from '../../../src/reconciler/status-store.js';

const transition = (seq: number): TransitionRecord => ({
  seq,
  at: new Date(Date.UTC(2026, 10, 23, 10, 0, seq)).toISOString(),
  state: seq % 2 === 0 ? 'converging' : 'rebooting',
  phase: 'vrouter',
  revision: 'a'.repeat(40),
  ...(seq % 5 === 0 ? { detail: `GC_CONNECT: "quoted" ü ${seq}` } : {}),
});

const res = () => ({
  resource: 'vrouter/env-file',
  status: 'changed' as const,
  before: { inDesiredState: false, differingProperties: ['content'] },
  rebootRequested: false,
  durationMs: 12,
});

/** A report whose newest resource read `content` (file contents: the bulk of a big report). */
const report = (i: number, content = 'A=1\n', finished = true): RunReport => ({
  node: 'win-1',
  revision: `${i}`.repeat(40).slice(0, 40),
  corrective: false,
  startedAt: '2026-11-23T10:00:00.000Z',
  ...(finished ? { finishedAt: '2026-11-23T10:05:00.000Z', result: 'verified' } : {}),
  phases: [
    {
      phase: 'vrouter',
      commands: 3,
      durationMs: 40,
      at: '2026-11-23T10:01:00.000Z',
      resources: [
        {
          resource: 'vrouter/env-file',
          status: 'changed',
          before: { inDesiredState: false, differingProperties: ['content'], actual: { content: 'old' }, desired: { content } },
          after: { inDesiredState: true, differingProperties: [], actual: { content }, desired: { content } },
          rebootRequested: false,
          durationMs: 12,
        },
      ],
    },
  ],
});

const detail = (history: number, reports: number): NodeDetail => ({
  history: Array.from({ length: history }, (_, i) => transition(i + 1)),
  reports: Array.from({ length: reports }, (_, i) => report(i)),
});

const AT = '2026-11-23T11:00:00.000Z';

/** What the status store hands the encoder: finished reports deflated as it keeps them, the running one whole. */
const packed = (d: NodeDetail): PackedDetail => {
  const last = d.reports.at(-1);
  const running = last && last.finishedAt === undefined ? last : undefined;
  const finished = (running ? d.reports.slice(0, -1) : d.reports).map((r) => deflateRawSync(JSON.stringify(r)));
  return running ? { history: d.history, finished, running } : { history: d.history, finished };
};

/** One part of a value as a writer other than groundcrew's encoder might put it. */
const part = (value: unknown) => deflateRawSync(JSON.stringify(value)).toString('base64');
const envelope = (value: unknown) => `gc-detail/1:${JSON.stringify(value)}`;
const valid = (fields: Record<string, unknown> = {}) => envelope({ node: 'win-1', at: AT, history: part([]), reports: [], ...fields });

describe('node detail in etcd', () => {
  it('reads back what was written: 200 transitions, nine finished reports and a running one, a few KB', () => {
    const written = { ...detail(200, 9), reports: [...detail(0, 9).reports, report(9, 'A=2\n', false)] };
    const value = encodeDetail('win-1', packed(written), AT);
    expect(value.length).toBeLessThan(16 * 1024);
    expect(decodeDetail('win-1', value)).toEqual({ detail: { node: 'win-1', at: AT, ...written } });
  });

  it("the status store's packed reports go as they are kept, and read back as the store lists them", () => {
    const status = new StatusStore();
    for (let i = 0; i < 12; i++) {
      status.update('win-1', { name: 'win-1', state: 'converging', phase: 'vrouter' }, `pass ${i}`);
      status.report('win-1', `${i}`.padStart(40, '0'), false, { ...(report(i).phases[0] as PhaseReport) });
      status.update('win-1', { name: 'win-1', state: 'verified', phase: undefined });
      if (i < 11) status.finishReport('win-1', 'verified');
    }
    const read = decodeDetail('win-1', encodeDetail('win-1', status.packedDetail('win-1'), AT));
    expect(read).toEqual({ detail: { node: 'win-1', at: AT, ...status.detail('win-1') } });
  });

  it('past the cap: the newest report loses its values, then the oldest reports go, then the oldest history', () => {
    // Random-looking contents do not deflate: ten reports of 64 KiB each are far past 256 KiB.
    const noise = (i: number) => {
      let x = i + 1;
      const bytes = Buffer.alloc(48 * 1024);
      // A linear congruential generator's bytes: no run for deflate to find.
      for (let j = 0; j < bytes.length; j++) {
        x = (x * 1103515245 + 12345) % 2 ** 31;
        bytes[j] = x >> 23;
      }
      return bytes.toString('base64');
    };
    const big: NodeDetail = { history: detail(200, 0).history, reports: Array.from({ length: 10 }, (_, i) => report(i, noise(i))) };
    const value = encodeDetail('win-1', packed(big), AT);
    expect(value.length).toBeLessThanOrEqual(DETAIL_MAX_BYTES);
    const read = decodeDetail('win-1', value);
    if (!('detail' in read)) throw new Error(read.unreadable);
    expect(read.detail.trimmed).toBe(true);
    // The newest is kept without the values read; the oldest went to make room; the history is whole.
    expect(read.detail.reports.length).toBeLessThan(10);
    expect(read.detail.reports.at(-1)?.revision).toBe(report(9).revision);
    expect(read.detail.reports.at(-1)?.phases[0]?.resources[0]?.before).toEqual({
      inDesiredState: false,
      differingProperties: ['content'],
    });
    expect(read.detail.history).toEqual(big.history);

    // A tighter cap: the oldest reports, then the oldest half of the history, go first; the newest stay.
    const tightValue = encodeDetail('win-1', packed(detail(200, 10)), AT, 1500);
    expect(tightValue.length).toBeLessThanOrEqual(1500);
    const tight = decodeDetail('win-1', tightValue);
    if (!('detail' in tight)) throw new Error(tight.unreadable);
    expect(tight.detail.reports.length).toBeLessThanOrEqual(1);
    expect(tight.detail.history.length).toBeLessThan(200);
    expect(tight.detail.history.at(-1)).toEqual(transition(200));
  });

  it('bytes that are not a detail record are unreadable, with the reason, whatever they are', () => {
    const bomb = deflateRawSync(Buffer.alloc(20 * 1024 * 1024, 0x20)).toString('base64');
    // Each part small enough alone, together past the 8 MiB they may inflate to.
    const fat = part({
      ...report(1),
      phases: [{ ...report(1).phases[0], resources: [{ ...res(), before: { ...res().before, actual: 'x'.repeat(1 << 20) } }] }],
    });
    const cases: [string, RegExp][] = [
      ['{"history":[]}', /not a groundcrew detail record/],
      ['gc-detail/1:{"node": "win-1",', /not JSON/],
      [valid({ history: '!!!not base64, not deflate' }), /^history: does not inflate/],
      [valid({ history: bomb }), /^history: does not inflate within 8388608 bytes/],
      [valid({ reports: Array(9).fill(fat) }), /^reports\.7: does not inflate within 8388608 bytes/],
      [valid({ history: deflateRawSync('[{').toString('base64') }), /^history: not JSON/],
      [valid({ history: part([{ seq: 1, at: AT, state: 7 }]) }), /^history\.0\.state/],
      [valid({ reports: [part({ ...report(1), phases: 'none' })] }), /^reports\.0\.phases/],
      [valid({ node: 'win-2' }), /written for node "win-2", read as "win-1"/],
      [valid({ history: undefined }), /^history: /],
      [envelope([]), /^value: /],
      ['x'.repeat(2 * 1024 * 1024), /longer than etcd allows/],
    ];
    for (const [value, reason] of cases) {
      const read = decodeDetail('win-1', value);
      expect(read, value.slice(0, 60)).toEqual({ unreadable: expect.stringMatching(reason) });
    }
  });

  it('fields the page does not know are left out, not passed on', () => {
    const read = decodeDetail('win-1', valid({ history: part([{ ...transition(1), script: '<script>' }]), extra: { a: 1 } }));
    expect(read).toEqual({ detail: { node: 'win-1', at: AT, history: [transition(1)], reports: [] } });
  });
});
