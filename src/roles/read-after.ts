// A set and the read of the phase's facts after it, in one command (issue 41): on Windows each command is an SSH
// channel and a new powershell.exe, so a converge that set a resource in one command and read the node again in
// the next paid for two starts where one does. The facts read is appended to the set's own script and runs only
// when the set succeeded, so a set that fails reports its own error, as when it ran alone:
// - PowerShell: after the set, `if (-not $?) { exit 1 }` (powershell.exe's own exit status for a script whose
//   last statement failed), then a marker line and the facts script, all on the output stream, in order;
// - bash: the set in a subshell (its `exit` ends only the set), its status checked, then the marker and the facts.
// A PowerShell set that ends with its own `exit` never reaches the read: the phase reads the node in a command of
// its own, as before. A phase whose facts take a secret on stdin reads them in a command of its own.

import { randomBytes } from 'node:crypto';
import type { Command, CommandResult, Executor, RunOptions } from '../dataplane/executor.js';
import { errors, GroundcrewError } from '../errors.js';
import { factsScript, readFacts } from './facts.js';
import type { FactQuery, Facts } from './resource.js';

/** The read's own time, on top of the set's deadline. */
const READ_MS = 60_000;

/** A set's command that failed: GC_SET_FAILED with the first lines of what it said. */
export function setFailed(label: string, r: CommandResult): GroundcrewError {
  return errors.GC_SET_FAILED(
    `${label} failed (exit ${r.exitCode}): ${(r.stderr || r.stdout).trim().split(/\r?\n/).slice(0, 3).join(' ')}`,
  );
}

function combined(os: Executor['os'], script: string, marker: string, queries: FactQuery[]): string {
  if (os === 'windows') return [script, 'if (-not $?) { exit 1 }', `'${marker}'`, factsScript(os, queries)].join('\n');
  return [
    '(',
    script,
    ')',
    'gc_set=$?',
    '[ "$gc_set" -eq 0 ] || exit "$gc_set"',
    `printf '%s\\n' '${marker}'`,
    factsScript(os, queries),
  ].join('\n');
}

/**
 * The executor a phase gives a resource's set: `setByCommand` runs its one command with the phase's facts read
 * after it, and `facts` holds them until any other command is sent through it (they are stale then).
 */
export class ReadAfterExecutor implements Executor {
  facts: Facts | undefined;

  constructor(
    private readonly inner: Executor,
    private readonly read: { queries: FactQuery[]; label: string },
  ) {}

  get os() {
    return this.inner.os;
  }

  run(command: Command, opts: RunOptions): Promise<CommandResult> {
    this.facts = undefined;
    return this.inner.run(command, opts);
  }

  close() {
    return this.inner.close();
  }

  /**
   * Runs the set's script, then reads the facts in the same command; throws GC_SET_FAILED when the set failed.
   * Answers what the set's script printed.
   */
  async setAndRead(script: string, label: string, opts: { signal?: AbortSignal; timeoutMs?: number; stdin?: string }): Promise<string> {
    this.facts = undefined;
    const timeoutMs = opts.timeoutMs ?? 300_000;
    const alone = async () => {
      const r = await this.inner.run({ script, label }, { ...opts, timeoutMs });
      if (r.exitCode !== 0) throw setFailed(label, r);
      return r.stdout;
    };
    if (this.read.queries.length === 0) return alone();
    const marker = `GC-READ-AFTER-${randomBytes(8).toString('hex')}`;
    let r: CommandResult;
    try {
      r = await this.inner.run(
        { script: combined(this.os, script, marker, this.read.queries), label },
        { ...opts, timeoutMs: timeoutMs + READ_MS },
      );
    } catch (err) {
      // Too long for a Windows command line with the read appended (refused before anything was sent): alone.
      if (!(err instanceof GroundcrewError && err.code === errors.GC_COMMAND_TOO_LONG.code)) throw err;
      return alone();
    }
    const at = r.stdout.lastIndexOf(`${marker}\n`) >= 0 ? r.stdout.lastIndexOf(`${marker}\n`) : r.stdout.lastIndexOf(`${marker}\r\n`);
    if (at < 0) {
      if (r.exitCode !== 0) throw setFailed(label, r);
      return r.stdout; // the set ended with its own exit: the phase reads the node itself
    }
    const answer = r.stdout.slice(r.stdout.indexOf('\n', at) + 1);
    if (r.exitCode !== 0)
      throw errors.GC_FACTS_FAILED(
        `reading the facts of ${this.read.label} after ${label} failed (exit ${r.exitCode}): ${r.stderr.trim().split('\n')[0] ?? ''}`,
      );
    this.facts = readFacts(this.os, this.read.queries, answer, r.stderr, `${this.read.label} after ${label}`);
    return r.stdout.slice(0, at);
  }
}
