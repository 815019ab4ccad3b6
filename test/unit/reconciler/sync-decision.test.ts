// What one sync decides for a node, before anything is done (sync-decision.ts): each guard clause in order, and a
// node that would leave a settled state asks for a place in the run window first.

import { describe, expect, it } from 'vitest';
import type { NodeSpec } from '../../../src/inventory/desired-state.js';
import type { NodeRecord } from '../../../src/reconciler/node-record.js';
import { decideSync, type SyncView } from '../../../src/reconciler/sync-decision.js';
import type { RoleInput } from '../../../src/roles/input.js';

const spec = { name: 'n1', mode: 'apply', paused: false } as unknown as NodeSpec;
const role = { os: 'linux' } as unknown as RoleInput;

/** An entry as the decision reads it: its machine's state and context, and the digest it was last given. */
function entryIn(state: string, digest: string, context: { mode?: string; paused?: boolean } = {}): NodeRecord {
  const snapshot = { status: 'active', value: state, context: { mode: 'apply', paused: false, ...context } };
  return { desired: { digest }, actor: { getSnapshot: () => snapshot } } as unknown as NodeRecord;
}

function view(over: Partial<SyncView>): SyncView {
  return {
    revision: { sha: 'r2', removalPolicy: 'orphan' },
    spec,
    entry: undefined,
    scope: 'yes',
    requested: false,
    resynced: false,
    shownPending: false,
    desired: () => ({ role, digest: 'd2' }),
    ...over,
  };
}

describe('decideSync', () => {
  it('no revision in force: idle; not driven here: let go, before anything else is read', () => {
    expect(decideSync(view({ revision: undefined }))).toEqual({ do: 'idle' });
    const entry = entryIn('converging', 'd1');
    expect(decideSync(view({ scope: 'hand-over', entry, spec: undefined }))).toEqual({ do: 'let-go', entry, scope: 'hand-over' });
  });

  it('gone from the inventory: removed by the policy, orphaned if it only waited (pending), else nothing', () => {
    const entry = entryIn('verified', 'd1');
    expect(decideSync(view({ spec: undefined, entry }))).toEqual({ do: 'remove', entry, policy: 'orphan' });
    expect(decideSync(view({ spec: undefined, shownPending: true }))).toEqual({ do: 'orphan' });
    expect(decideSync(view({ spec: undefined }))).toEqual({ do: 'nothing' });
  });

  it('new: spawned once it has a place, shown pending while it waits', () => {
    expect(decideSync(view({}))).toEqual({ do: 'take-place', shownWaiting: 'fresh', start: { do: 'spawn', spec, role, digest: 'd2' } });
  });

  it('settled and asked something new: a place first, shown with its new revision; a running one is told at once', () => {
    const settled = entryIn('verified', 'd1');
    expect(decideSync(view({ entry: settled }))).toMatchObject({
      do: 'take-place',
      shownWaiting: 'new-desired',
      start: { do: 'update', desired: { digest: 'd2' } },
    });
    const converging = entryIn('converging', 'd1');
    expect(decideSync(view({ entry: converging }))).toMatchObject({ do: 'update', entry: converging, desired: { digest: 'd2' } });
  });

  it('settled, same digest: only a mode change, a request or a resync needs a place; else an update that changes nothing', () => {
    expect(decideSync(view({ entry: entryIn('verified', 'd2', { mode: 'monitor' }) }))).toMatchObject({
      do: 'take-place',
      shownWaiting: undefined,
      start: { do: 'update', desired: 'mode' },
    });
    expect(decideSync(view({ entry: entryIn('stalled', 'd2'), requested: true }))).toMatchObject({
      do: 'take-place',
      start: { do: 'update', desired: undefined, request: true },
    });
    expect(decideSync(view({ entry: entryIn('verified', 'd2') }))).toMatchObject({
      do: 'update',
      desired: undefined,
      request: false,
      resync: false,
    });
  });
});
