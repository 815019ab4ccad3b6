// The check a saved node passes before its machine is restored: a snapshot the current machine cannot
// follow (unknown state, wrong shape, older version) is refused with a reason, never handed to createActor.

import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { checkSaved, SNAPSHOT_VERSION } from '../../../src/reconciler/saved-node.js';
import { nodeMachine } from '../../../src/state-machines/node-machine.js';

const input = {
  node: 'win1',
  revision: 'r1',
  phases: ['prereqs', 'testSigning'],
  rebootBatch: ['prereqs'],
  mode: 'autocorrect' as const,
  paused: false,
};
/** A real persisted snapshot: the machine as it stands right after start, mid-phase. */
const snapshot = createActor(nodeMachine, { input }).getPersistedSnapshot() as unknown as Record<string, unknown> & {
  context: Record<string, unknown>;
};
const saved = (patch: Record<string, unknown> = {}) => ({ version: SNAPSHOT_VERSION, digest: 'd1', revision: 'r1', snapshot, ...patch });
const reason = (raw: unknown) => {
  const check = checkSaved(raw, nodeMachine);
  return check.ok ? 'ok' : check.reason;
};

describe('checkSaved', () => {
  it('accepts what the current machine saved, xstate fields untouched, and the machine restores from it', () => {
    const check = checkSaved(JSON.parse(JSON.stringify(saved({ observed: { contrail: '5.0.1' } }))), nodeMachine);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.saved.snapshot).toEqual(JSON.parse(JSON.stringify(snapshot)));
    const actor = createActor(nodeMachine, { snapshot: check.saved.snapshot as never, input }).start();
    expect(actor.getSnapshot().status).toBe('active');
    expect(actor.getSnapshot().value).toEqual({ converging: 'running' });
    actor.stop();
  });

  it("reads a snapshot saved before the last phase was renamed: 'verified' is 'verify' in every list of phases", () => {
    const context = { ...snapshot.context, phases: ['prereqs', 'verified'], rebootBatch: ['verified'], rebootedPhases: ['verified'] };
    const check = checkSaved(JSON.parse(JSON.stringify(saved({ snapshot: { ...snapshot, context } }))), nodeMachine);
    expect(check.ok && check.saved.snapshot.context).toMatchObject({
      phases: ['prereqs', 'verify'],
      rebootBatch: ['verify'],
      rebootedPhases: ['verify'],
    });
  });

  it('refuses a state the machine does not have, top level or nested', () => {
    expect(reason(saved({ snapshot: { ...snapshot, value: 'flying' } }))).toBe(
      `state "flying" is not a state of this groundcrew's node machine`,
    );
    expect(reason(saved({ snapshot: { ...snapshot, value: { rebooting: 'nowhere' } } }))).toBe(
      `state {"rebooting":"nowhere"} is not a state of this groundcrew's node machine`,
    );
  });

  it('refuses the wrong shape, naming where', () => {
    const { phases: _, ...noPhases } = snapshot.context;
    expect(reason(saved({ snapshot: { ...snapshot, context: noPhases } }))).toMatch(/^wrong shape at snapshot\.context\.phases: /);
    expect(reason(saved({ snapshot: { ...snapshot, context: { ...snapshot.context, phaseIndex: 'two' } } }))).toMatch(
      /^wrong shape at snapshot\.context\.phaseIndex: /,
    );
    expect(reason(saved({ snapshot: { ...snapshot, value: 42 } }))).toMatch(/^wrong shape at snapshot\.value: /);
    expect(reason(saved({ snapshot: { ...snapshot, status: 'error' } }))).toMatch(/^wrong shape at snapshot\.status: /);
    expect(reason(saved({ digest: undefined }))).toMatch(/^wrong shape at digest: /);
    expect(reason([saved()])).toBe('not a JSON object');
    expect(reason(null)).toBe('not a JSON object');
  });

  it('refuses an older (or unversioned) snapshot', () => {
    const { version: _, ...unversioned } = saved();
    expect(reason(unversioned)).toBe(
      `expected snapshot version ${SNAPSHOT_VERSION}, found no version (saved before snapshots were versioned)`,
    );
    expect(reason(saved({ version: 0 }))).toBe(`expected snapshot version ${SNAPSHOT_VERSION}, found version 0`);
  });
});
