// Run reports at scale (issue 18): a node's newest report keeps the values its resources read; older ones keep
// what each resource was (status, what differed, errors, times) without them, so ten reports per node at
// 10,000 nodes stay small.

import { describe, expect, it } from 'vitest';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import type { ResourceOutcome } from '../../../src/roles/phase.js';

const outcome = (content: string): ResourceOutcome => ({
  resource: 'vrouter/env-file',
  status: 'changed',
  before: { inDesiredState: false, differingProperties: ['content'], actual: { content: 'old' }, desired: { content } },
  after: { inDesiredState: true, differingProperties: [], actual: { content }, desired: { content } },
  rebootRequested: false,
  durationMs: 12,
});

describe('StatusStore run reports', () => {
  it('keeps the values read only in the newest report', () => {
    const status = new StatusStore();
    const phase = (content: string) => ({
      phase: 'vrouter',
      resources: [outcome(content)],
      commands: 2,
      durationMs: 30,
      at: '2026-11-23T10:00:00Z',
    });
    const first = phase('A=1\n');
    const [handedIn] = first.resources;
    status.report('n1', 'r1', false, first);
    status.finishReport('n1', 'verified');
    status.report('n1', 'r2', false, phase('A=2\n'));
    const [older, newest] = status.reports('n1');
    expect(older?.phases[0]?.resources[0]).toEqual({
      resource: 'vrouter/env-file',
      status: 'changed',
      before: { inDesiredState: false, differingProperties: ['content'] },
      after: { inDesiredState: true, differingProperties: [] },
      rebootRequested: false,
      durationMs: 12,
    });
    expect(older?.result).toBe('verified');
    expect(newest?.phases[0]?.resources[0]?.after?.actual).toEqual({ content: 'A=2\n' });
    // The outcome the reconciler handed in is not changed (observed versions read it).
    expect(handedIn?.before.actual).toEqual({ content: 'old' });
  });

  it('keeps a pass a new revision interrupted, summarized and unfinished, and at most ten reports', () => {
    const status = new StatusStore();
    const phase = (content: string, at: string) => ({ phase: 'vrouter', resources: [outcome(content)], commands: 2, durationMs: 30, at });
    status.report('n1', 'r1', false, phase('A=1\n', '2026-11-23T10:00:00Z'));
    status.report('n1', 'r2', false, phase('A=2\n', '2026-11-23T10:01:00Z'));
    status.finishReport('n1', 'verified');
    const [interrupted, finished] = status.reports('n1');
    expect(interrupted?.finishedAt).toBeUndefined();
    expect(interrupted?.phases[0]?.resources[0]?.before).toEqual({ inDesiredState: false, differingProperties: ['content'] });
    expect(finished).toMatchObject({ revision: 'r2', result: 'verified', startedAt: '2026-11-23T10:01:00Z' });
    expect(finished?.phases[0]?.resources[0]?.before.actual).toEqual({ content: 'old' });
    for (let i = 3; i <= 14; i++) {
      status.report('n1', `r${i}`, false, phase(`A=${i}\n`, '2026-11-23T10:02:00Z'));
      status.finishReport('n1', 'verified');
    }
    const reports = status.reports('n1');
    expect(reports.map((r) => r.revision)).toEqual(['r5', 'r6', 'r7', 'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14']);
    expect(reports.filter((r) => r.phases[0]?.resources[0]?.after?.actual !== undefined).map((r) => r.revision)).toEqual(['r14']);
  });
});
