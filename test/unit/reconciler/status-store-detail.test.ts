// A node's history and run reports handed from one status store to another (cluster mode's takeover, issue 19
// item 4): the new owner's records follow the old owner's, a pass the old owner left running goes on in the
// same report, and a node another member drives has its transitions announced but not kept.

import { describe, expect, it } from 'vitest';
import { type PhaseReport, type StatusEvent, StatusStore } from '../../../src/reconciler/status-store.js';

const phase = (name: string, at: string): PhaseReport => ({ phase: name, resources: [], commands: 1, durationMs: 5, at });
const REV = 'a'.repeat(40);

describe('StatusStore detail: export and restore of one node', () => {
  it("the new owner's history and reports continue the old owner's", () => {
    const old = new StatusStore();
    old.update('win-1', { name: 'win-1', state: 'converging', phase: 'prepare', desiredRevision: REV });
    old.report('win-1', REV, false, phase('prepare', '2026-11-23T10:00:00.000Z'));
    old.update('win-1', { name: 'win-1', state: 'rebooting', phase: 'vrouter' }, 'reboot batch');
    old.report('win-1', REV, false, phase('vrouter', '2026-11-23T10:01:00.000Z'));
    const exported = old.detail('win-1');
    expect(exported.history.map((t) => t.state)).toEqual(['converging', 'rebooting']);
    expect(exported.reports).toHaveLength(1);
    expect(exported.reports[0]?.finishedAt).toBeUndefined();

    const next = new StatusStore();
    next.restoreDetail('win-1', structuredClone(exported));
    expect(next.hasDetail('win-1')).toBe(true);
    // The machine resumes: its next transitions and phases follow the old owner's.
    next.update('win-1', { name: 'win-1', state: 'converging', phase: 'verify', desiredRevision: REV });
    next.report('win-1', REV, false, phase('verify', '2026-11-23T10:03:00.000Z'));
    next.update('win-1', { name: 'win-1', state: 'verified', phase: undefined, lastAppliedRevision: REV });
    next.finishReport('win-1', 'verified');
    const history = next.history('win-1');
    expect(history.map((t) => t.state)).toEqual(['converging', 'rebooting', 'converging', 'verified']);
    expect(history[1]?.detail).toBe('reboot batch');
    // The pass the old owner left running is the same report, finished by the new owner.
    const reports = next.reports('win-1');
    expect(reports).toHaveLength(1);
    expect(reports[0]?.phases.map((p) => p.phase)).toEqual(['prepare', 'vrouter', 'verify']);
    expect(reports[0]?.result).toBe('verified');
  });

  it('finished reports restored stay finished; the eleventh oldest is gone', () => {
    const old = new StatusStore();
    for (let i = 0; i < 12; i++) {
      old.report('n1', `${i}`.padStart(40, '0'), false, phase('vrouter', '2026-11-23T10:00:00.000Z'));
      old.finishReport('n1', 'verified');
    }
    const next = new StatusStore();
    next.restoreDetail('n1', old.detail('n1'));
    expect(next.reports('n1').map((r) => r.revision)).toEqual(old.reports('n1').map((r) => r.revision));
    next.report('n1', 'f'.repeat(40), false, phase('vrouter', '2026-11-23T11:00:00.000Z'));
    const after = next.reports('n1');
    expect(after).toHaveLength(10);
    expect(after.at(-1)?.revision).toBe('f'.repeat(40));
    expect(after.at(-2)?.result).toBe('verified');
  });

  it("a node another member drives: its transitions are announced, not kept; dropping a node's detail keeps its status", () => {
    const status = new StatusStore();
    const events: StatusEvent[] = [];
    status.on('change', (e) => events.push(e));
    status.update('remote', { name: 'remote', state: 'converging' }, undefined, { remote: true });
    status.update('remote', { name: 'remote', state: 'verified' }, undefined, { remote: true });
    expect(events.map((e) => e.type === 'node' && e.transition?.state)).toEqual(['converging', 'verified']);
    expect(status.history('remote')).toEqual([]);
    expect(status.hasDetail('remote')).toBe(false);

    status.update('mine', { name: 'mine', state: 'converging' });
    status.report('mine', REV, false, phase('vrouter', '2026-11-23T10:00:00.000Z'));
    status.dropDetail('mine');
    expect(status.detail('mine')).toEqual({ history: [], reports: [] });
    expect(status.get('mine')?.state).toBe('converging');
  });
});
