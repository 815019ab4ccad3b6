// Intake's deadline: a revision whose reading never finishes (a filesystem that hangs: nothing in a repo
// can do it any more, see read-inventory-file.ts) is rejected in time, and the next one is applied.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import { Intake, type IntakeOptions } from '../../../src/reconciler/intake.js';
import { StatusStore } from '../../../src/reconciler/status-store.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');
const stateDir = mkdtempSync(join(tmpdir(), 'gc-intake-'));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

/** An intake whose reconciler only notes what it was asked to apply. */
function intakeWith(options: Partial<IntakeOptions>) {
  const status = new StatusStore();
  const applied: string[] = [];
  const intake = new Intake({
    reconciler: { apply: (r) => applied.push(r.sha), revision: undefined },
    status,
    log: pino({ level: 'silent' }),
    stateDir,
    ...options,
  });
  return { intake, status, applied };
}

describe('Intake', () => {
  it('rejects a revision whose reading does not finish by the deadline, then applies the next', async () => {
    // The deadline holds for the good revision too: 200 ms was too short to read the example on a loaded machine
    // (the good one was rejected); the hanging one never finishes whatever the deadline.
    const { intake, status, applied } = intakeWith({
      deadlineMs: 3000,
      load: (dir, options) => (dir === 'hangs' ? new Promise(() => undefined) : loadInventory(dir, options)),
    });
    await intake.receive({ sha: 'a'.repeat(40), dir: 'hangs', subject: 'hangs', trigger: 'poll' });
    expect(status.revisions()[0]).toMatchObject({
      sha: 'a'.repeat(40),
      accepted: false,
      errors: ['reading and validating the revision took longer than 3s: rejected'],
    });
    await intake.receive({ sha: 'b'.repeat(40), dir: EXAMPLE, subject: 'good', trigger: 'poll' });
    expect(status.revisions()[0]).toMatchObject({ sha: 'b'.repeat(40), accepted: true });
    expect(applied).toEqual(['b'.repeat(40)]);
  });

  it('rejects a revision when the secrets file cannot be read, and never throws into the source', async () => {
    const { intake, status, applied } = intakeWith({ secretsFile: join(stateDir, 'no-such-secrets.yaml') });
    await intake.receive({ sha: 'c'.repeat(40), dir: EXAMPLE, subject: 'good, but no secrets', trigger: 'poll' });
    expect(status.revisions()[0]).toMatchObject({ sha: 'c'.repeat(40), accepted: false });
    expect(status.revisions()[0]?.errors?.[0]).toMatch(/no-such-secrets\.yaml: cannot read the secrets file: ENOENT/);
    expect(applied).toEqual([]);
  });
});
