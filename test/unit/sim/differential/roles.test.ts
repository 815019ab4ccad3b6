// The differential suite, Windows part: every script the Windows roles can emit (test/support/windows-scripts.ts),
// as the wire sends it (the prelude first), on a fresh and a drifted host (role-hosts.ts) of each build it is sent
// to, run in the TypeScript interpreter and in real pwsh 7.6.9 over clones of the same simulated host state.
// Compared: stdout, the exit code, each error's class, whether a reboot was asked for, and the host's state after.
// A difference fails unless the simulator refused by name (counted apart); a case is never dropped for disagreeing.

import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimShells } from '../../../../src/dataplane/sim-executor.js';
import { POWERSHELL_PRELUDE } from '../../../../src/dataplane/wire.js';
import type { WindowsBuild } from '../../../../src/sim/windows/windows-state.js';
import { BUILDS, emittedWindowsScripts } from '../../../support/windows-scripts.js';
import { compared, isRefusal } from './outcome.js';
import { type RealRoleOutcome, type RoleCase, runRoleCasesInRealPwsh } from './real-pwsh-roles.js';
import { cloneHost, type HostKind, hostStates } from './role-hosts.js';

interface Side {
  stdout: string;
  exitCode: number;
  errors: string[];
  rebootRequested: boolean;
  state: unknown;
}

type RoleVerdict = { kind: 'agrees' | 'refused' } | { kind: 'differs'; field: keyof Side; real: unknown; simulated: unknown };

/**
 * pwsh appends the advanced function's name to an error's FullyQualifiedErrorId (`...,GetServiceCommand,Get-Service`):
 * the bridge's cmdlets are functions, a node's are compiled cmdlets, which do not (docs/simulator.md).
 */
const withoutFunctionName = (error: string) => error.replace(/^(\S+),[A-Za-z]+-[A-Za-z]+( \|)/, '$1$2');

function realSide(raw: RealRoleOutcome, rebootRequested: boolean, state: unknown): Side {
  const c = compared(raw);
  // A script that wrote into pwsh's Linux working directory reached no host: that is a difference, never a pass.
  const stdout = raw.strays.length > 0 ? `${c.stdout}[wrote into pwsh's working directory: ${raw.strays.join(', ')}]` : c.stdout;
  return { stdout, exitCode: c.exitCode, errors: c.errors.map(withoutFunctionName), rebootRequested, state };
}

const KINDS: HostKind[] = ['fresh', 'drifted'];
const FIELDS: (keyof Side)[] = ['stdout', 'exitCode', 'errors', 'rebootRequested', 'state'];

let verdicts = new Map<string, RoleVerdict>();
const names = new Map<string, string>();

beforeAll(async () => {
  const shells = await SimShells.create();
  const emitted = await emittedWindowsScripts();
  const states = await hostStates(shells, BUILDS);
  const simulated = new Map<string, Side>();
  const cases = new Map<WindowsBuild, (RoleCase & { name: string })[]>(BUILDS.map((b) => [b, []]));
  emitted.forEach(({ script, builds }, index) => {
    for (const build of builds)
      for (const kind of KINDS) {
        const state = states.get(`${build}-${kind}`) ?? '';
        const id = `s${index}-${build}-${kind}`;
        const name = `script ${index} on a ${kind} ${build} host: ${script.split('\n')[0]?.slice(0, 80)}`;
        const wire = POWERSHELL_PRELUDE + script;
        const host = cloneHost(state);
        const raw = shells.windows.runScript(host, wire);
        const c = compared(raw);
        simulated.set(id, { ...c, rebootRequested: host.rebootRequested, state: isRefusal(raw) ? 'refused' : host.state });
        if (isRefusal(raw)) verdicts.set(id, { kind: 'refused' });
        cases.get(build)?.push({ id, name, script: wire, stdin: '', host: cloneHost(state) });
      }
  });
  for (const [build, list] of cases) {
    const real = await runRoleCasesInRealPwsh(build, list);
    for (const c of list) {
      names.set(c.id, c.name);
      if (verdicts.has(c.id)) continue;
      const raw = real.get(c.id);
      const sim = simulated.get(c.id);
      if (!raw || !sim) throw new Error(`no answer for ${c.id}`);
      const r = realSide(raw, c.host.rebootRequested, c.host.state);
      const field = FIELDS.find((f) => !isDeepStrictEqual(r[f], sim[f]));
      verdicts.set(c.id, field ? { kind: 'differs', field, real: r[field], simulated: sim[field] } : { kind: 'agrees' });
    }
  }
}, 1_800_000);

afterAll(() => {
  const count = (kind: RoleVerdict['kind']) => [...verdicts.values()].filter((v) => v.kind === kind).length;
  console.log(
    `differential (roles): ${verdicts.size} cases, ${count('agrees')} agree, ${count('refused')} refused by the simulator, ${count('differs')} differ`,
  );
});

describe('the Windows roles in the TypeScript interpreter against real pwsh, on the same host state', () => {
  it('runs every emitted script on a fresh and a drifted host of each build it is sent to', () => {
    expect(verdicts.size).toBeGreaterThan(2 * 120);
    const differing = [...verdicts].filter(([, v]) => v.kind === 'differs').map(([id, v]) => ({ case: names.get(id), ...v }));
    expect(differing).toEqual([]);
  });
});
