// A set's last command also reads the phase's facts (src/roles/read-after.ts), in real PowerShell and real bash:
// one command where there were two, and a set that fails still reports its own error, never the read's. A
// PowerShell set that ends with its own `exit` is read in a command of its own, as before.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Command, CommandResult, Executor, RunOptions } from '../../../src/dataplane/executor.js';
import { bashQuote, psQuote } from '../../../src/dataplane/quote.js';
import type { Os } from '../../../src/os.js';
import { type Phase, passPhase, setByCommand } from '../../../src/roles/phase.js';
import type { Resource } from '../../../src/roles/resource.js';
import { WindowsHost } from '../../../src/sim/windows/windows-host.js';
import { realBash } from '../../support/real-bash.js';
import { runInRealPwsh } from '../../support/real-pwsh-host.js';

/** Real pwsh over one simulated Windows host, or real bash; every command's label kept. */
class Real implements Executor {
  labels: string[] = [];
  readonly host = WindowsHost.fresh({ hostname: 'win1', build: 17763 });
  constructor(readonly os: Os) {}
  async run(command: Command, opts: RunOptions): Promise<CommandResult> {
    this.labels.push(command.label ?? '');
    const started = performance.now();
    const r =
      this.os === 'windows'
        ? await runInRealPwsh(this.host, command.script, { ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }) })
        : await realBash(command.script, { ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }) });
    return { stdout: r.stdout, stderr: r.stderr, exitCode: r.exitCode, durationMs: performance.now() - started };
  }
  async close() {}
}

const dir = mkdtempSync(join(tmpdir(), 'gc-read-after-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file the set writes and the fact reads: `C:\<name>` on the simulated host, a file under `dir` for bash. */
function fileResource(os: Os, name: string, set: (write: string) => string): Resource {
  const path = os === 'windows' ? `C:\\${name}` : join(dir, name);
  const write = os === 'windows' ? `Set-Content -LiteralPath ${psQuote(path)} -Value 'x'` : `echo x > ${bashQuote(path)}`;
  return {
    name,
    facts: [
      os === 'windows'
        ? { id: name, ps: `Test-Path -LiteralPath ${psQuote(path)}` }
        : { id: name, shBuiltin: `[[ -f ${bashQuote(path)} ]] && gc_v=yes || gc_v=no` },
    ],
    test: (facts) => {
      const there = facts.get(name) === true || (facts.get(name) as { stdout?: string } | undefined)?.stdout === 'yes';
      return { inDesiredState: there, differingProperties: there ? [] : [name] };
    },
    set: ({ exec, signal }) => setByCommand(exec, set(write), `write ${name}`, { ...(signal ? { signal } : {}) }),
  };
}

const phase = (resources: Resource[]): Phase => ({ name: 'test', resources });
let n = 0;
const fresh = (prefix: string) => `${prefix}-${++n}.txt`;

describe.each(['windows', 'linux'] as const)('a set and the read after it, on %s', (os) => {
  it('two resources set: three commands (the first read, then each set with the read after it)', async () => {
    const exec = new Real(os);
    const [a, b] = [fresh('a'), fresh('b')];
    const outcome = await passPhase(exec, phase([fileResource(os, a, (w) => w), fileResource(os, b, (w) => w)]));
    expect(outcome.failure?.message).toBeUndefined();
    expect(outcome.inDesiredState).toBe(true);
    expect(outcome.resources.map((r) => r.status)).toEqual(['changed', 'changed']);
    expect(exec.labels).toEqual(['facts of test', `write ${a}`, `write ${b}`]);
  });

  it('a set that exits non-zero reports its own exit and output, and the read never runs', async () => {
    const exec = new Real(os);
    const a = fresh('fail');
    const fail = (w: string) =>
      os === 'windows' ? `${w}\n[Console]::Error.WriteLine('no room on C:')\nexit 7` : `${w}\necho 'no room on /' >&2\nexit 7`;
    const outcome = await passPhase(exec, phase([fileResource(os, a, fail)]));
    expect(outcome.failure?.code).toBe('GC_SET_FAILED');
    expect(outcome.failure?.message).toMatch(new RegExp(`write ${a} failed \\(exit 7\\): no room on`));
    expect(exec.labels).toEqual(['facts of test', `write ${a}`]);
  });

  it('a set whose last statement failed fails (exit 1), as the set alone would', async () => {
    const exec = new Real(os);
    const a = fresh('last');
    // PowerShell: a non-terminating error leaves $? false, and powershell.exe -Command exits 1; bash: its status.
    const lastFails = (w: string) => (os === 'windows' ? `${w}\nGet-Item -LiteralPath 'C:\\no-such-file'` : `${w}\nfalse`);
    const outcome = await passPhase(exec, phase([fileResource(os, a, lastFails)]));
    expect(outcome.failure?.code).toBe('GC_SET_FAILED');
    expect(outcome.failure?.message).toMatch(new RegExp(`write ${a} failed \\(exit 1\\)`));
  });

  it('a set that ends with its own exit 0: PowerShell reads in a command of its own, bash in the same one', async () => {
    const exec = new Real(os);
    const a = fresh('exit');
    const outcome = await passPhase(exec, phase([fileResource(os, a, (w) => `${w}\nexit 0`)]));
    expect(outcome.inDesiredState).toBe(true);
    // bash runs the set in a subshell, whose exit ends only the set; PowerShell's exit ends the whole command.
    expect(exec.labels).toEqual(['facts of test', `write ${a}`, ...(os === 'windows' ? ['facts of test'] : [])]);
  });
});
