// The differential suite, Windows part: every script the Windows roles can emit (test/support/windows-scripts.ts),
// as the wire sends it (the prelude first), on a fresh and a drifted host (role-hosts.ts) of each build it is sent
// to, run in the TypeScript interpreter and in real pwsh 7.6.9 over clones of the same simulated host state.
// Compared: stdout, the exit code, each error's class, whether a reboot was asked for, and the host's state after.
// A difference fails unless the simulator refused by name or role-known-differences.ts names it (each counted
// apart); a case is never dropped for disagreeing.

import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimShells } from '../../../../src/dataplane/sim-executor.js';
import { POWERSHELL_PRELUDE } from '../../../../src/dataplane/wire.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { BUILDS, emittedWindowsScripts } from '../../../support/windows-scripts.js';
import { isRefusal } from './outcome.js';
import { type RoleCase, runRoleCasesInRealPwsh } from './real-pwsh-roles.js';
import { cloneHost, type HostKind, hostStates } from './role-hosts.js';
import { KNOWN_DIFFERENCES, type KnownDifference } from './role-known-differences.js';
import { realSide, type Side, simulatedSide } from './role-side.js';

type RoleVerdict =
  | { kind: 'agrees' | 'refused' }
  | { kind: 'known'; known: KnownDifference }
  | { kind: 'differs'; field: keyof Side; real: unknown; simulated: unknown };

/** What a role sends on stdin (a file's content as base64, write-from-stdin.ts), to a script that reads it. */
const stdinFor = (script: string) => (script.includes('[Console]::In') ? Buffer.from('groundcrew differential\n').toString('base64') : '');

const KINDS: HostKind[] = ['fresh', 'drifted'];
const FIELDS: (keyof Side)[] = ['stdout', 'exitCode', 'errors', 'rebootRequested', 'state'];

const verdicts = new Map<string, RoleVerdict>();
const names = new Map<string, string>();

beforeAll(async () => {
  const shells = await SimShells.create();
  const emitted = await emittedWindowsScripts();
  const states = await hostStates(shells, BUILDS);
  const simulated = new Map<string, Side>();
  const cases = new Map<WindowsBuild, RoleCase[]>(BUILDS.map((b) => [b, []]));
  emitted.forEach(({ script, builds }, index) => {
    for (const build of builds)
      for (const kind of KINDS) {
        const state = states.get(`${build}-${kind}`) ?? '';
        const id = `s${index}-${build}-${kind}`;
        names.set(id, `script ${index} on a ${kind} ${build} host: ${script.split('\n')[0]?.slice(0, 80)}`);
        const wire = POWERSHELL_PRELUDE + script;
        const stdin = stdinFor(script);
        const host = cloneHost(state);
        const raw = shells.windows.runScript(host, wire, stdin);
        if (isRefusal(raw)) verdicts.set(id, { kind: 'refused' });
        else simulated.set(id, simulatedSide(raw, host));
        cases.get(build)?.push({ id, script: wire, stdin, host: cloneHost(state) });
      }
  });
  for (const [build, list] of cases) {
    const real = await runRoleCasesInRealPwsh(build, list);
    for (const c of list) {
      if (verdicts.has(c.id)) continue;
      const raw = real.get(c.id);
      const sim = simulated.get(c.id);
      if (!raw || !sim) throw new Error(`no answer for ${c.id}`);
      const r = realSide(raw, c.host);
      const field = FIELDS.find((f) => !isDeepStrictEqual(r[f], sim[f]));
      const known = KNOWN_DIFFERENCES.find((k) => k.field === field && k.script.test(c.script));
      if (!field) verdicts.set(c.id, { kind: 'agrees' });
      else verdicts.set(c.id, known ? { kind: 'known', known } : { kind: 'differs', field, real: r[field], simulated: sim[field] });
    }
  }
}, 1_800_000);

afterAll(() => {
  const count = (kind: RoleVerdict['kind']) => [...verdicts.values()].filter((v) => v.kind === kind).length;
  console.log(
    `differential (roles): ${verdicts.size} cases, ${count('agrees')} agree, ${count('refused')} refused by the simulator, ${count('known')} differ as role-known-differences.ts names, ${count('differs')} differ`,
  );
});

describe('the Windows roles in the TypeScript interpreter against real pwsh, on the same host state', () => {
  it('runs every emitted script on a fresh and a drifted host of each build it is sent to: no unexplained difference', () => {
    expect(verdicts.size).toBeGreaterThan(2 * 120);
    const differing = [...verdicts].filter(([, v]) => v.kind === 'differs').map(([id, v]) => ({ case: names.get(id), ...v }));
    expect(differing).toEqual([]);
  });

  it('each known difference still differs (a fix takes its entry out)', () => {
    const seen = new Set([...verdicts.values()].flatMap((v) => (v.kind === 'known' ? [v.known] : [])));
    expect(KNOWN_DIFFERENCES.filter((k) => !seen.has(k)).map((k) => k.why)).toEqual([]);
  });
});
