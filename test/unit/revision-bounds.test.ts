// Bounded revision records (issue 30, item 5): whatever a commit holds, what is stored about it, served on
// /api/revisions' shape, rendered on /revisions and printed by `groundcrew status` stays small. 30,000 errors
// (one per bad file of a 30,000-file tree) and a 1 MB subject, through the real status store, page and table.

import { describe, expect, it } from 'vitest';
import { renderStatus } from '../../src/cli/client-commands.js';
import { StatusStore } from '../../src/reconciler/status-store.js';
import { cut, ERRORS_KEPT, SUBJECT_CHARS } from '../../src/revision-bounds.js';
import { revisionsPage } from '../../src/server/revision-pages.js';

const sha = (i: number) => i.toString(16).padStart(40, '0');
const noRollout = (s: string) => ({ sha: s, nodes: 0, applied: [], failed: [], held: [], halted: false, finished: true }) as never;

describe('bounded revision records', () => {
  it('keeps the first errors of a 30,000-error revision and counts them all', () => {
    const status = new StatusStore();
    const errors = Array.from({ length: 30_000 }, (_, i) => `nodes/node-${i}.yaml:1:1: no such node in instances.yaml`);
    const kept = status.recordRevision({ sha: sha(1), subject: 'thirty thousand files', accepted: false, errors });
    expect(kept.errors).toHaveLength(ERRORS_KEPT);
    expect(kept.errors?.[0]).toBe(errors[0]);
    expect(kept.errorCount).toBe(30_000);
    const page = revisionsPage(status.revisions(), noRollout);
    expect(page).toContain(`… and ${30_000 - ERRORS_KEPT} more (30000 in all)`);
    expect(page).not.toContain('node-29999');
    expect(renderStatus([], status.revisions())).toContain('… and 29900 more (30000 in all)');
  });

  it('renders the page within a fixed budget after the whole window of such revisions', () => {
    const status = new StatusStore();
    const long = 'x'.repeat(100_000);
    for (let i = 0; i < 150; i++)
      status.recordRevision({ sha: sha(i), subject: long, accepted: false, errors: Array.from({ length: 30_000 }, () => long) });
    const page = revisionsPage(status.revisions(), noRollout);
    // 100 revisions x (100 errors x 500 characters + a 200-character subject), and the page around them.
    expect(page.length).toBeLessThan(100 * (ERRORS_KEPT * 520 + 1000) + 20_000);
    expect(JSON.stringify(status.revisions()).length).toBeLessThan(100 * (ERRORS_KEPT * 520 + 1000));
  });

  it('cuts a 1 MB subject everywhere it is kept and shown, on a character boundary', () => {
    const status = new StatusStore();
    // A subject of astral characters (two UTF-16 units each): the cut never leaves half of one.
    const subject = '𝔊'.repeat(500_000);
    const kept = status.recordRevision({ sha: sha(2), subject, accepted: true });
    expect(Array.from(kept.subject ?? '')).toHaveLength(SUBJECT_CHARS);
    expect(kept.subject?.endsWith('𝔊…')).toBe(true);
    expect(JSON.stringify(status.revisions()).length).toBeLessThan(2000);
    expect(revisionsPage(status.revisions(), noRollout).length).toBeLessThan(20_000);
    expect(renderStatus([], status.revisions()).length).toBeLessThan(2000);
    expect(cut('short', SUBJECT_CHARS)).toBe('short');
  });
});
