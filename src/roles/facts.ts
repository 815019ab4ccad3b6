// Gathers the facts of many resources in one command: one PowerShell script answering JSON, or one bash
// script answering tab-separated base64 lines.

import type { Executor } from '../dataplane/executor.js';
import { bashQuote, psQuote } from '../dataplane/quote.js';
import { errors } from '../errors.js';
import type { FactQuery, Facts } from './resource.js';

/**
 * The script that reads `queries` on a Windows node; exported so tests can parse every one.
 * Two answers per fact, kept apart: a value (`$null` when the fact says "absent", which the query must say
 * itself, e.g. `-ErrorAction SilentlyContinue` and an `if`) or a failure (any error the query did not
 * expect: an unknown cmdlet, a refused parameter, a native tool that exited non-zero). With
 * `$ErrorActionPreference = 'Stop'` every error, non-terminating ones included, reaches the catch.
 */
export function windowsFactsScript(queries: FactQuery[], withStdin = false): string {
  const lines = [
    ...(withStdin ? ['$GcStdin = [Console]::In.ReadToEnd()'] : []),
    "$ErrorActionPreference = 'Stop'",
    // Names no query uses: a fact may set variables of its own ($s, $e, $n).
    '$GcFacts = [ordered]@{}',
    '$GcFailed = [ordered]@{}',
  ];
  for (const q of queries) {
    if (!q.ps) throw new Error(`fact ${q.id} has no PowerShell form`);
    // $( ) lets a fact be several statements; one item comes back as itself, none as $null.
    lines.push(`try { $GcFacts[${psQuote(q.id)}] = $(${q.ps}) } catch { $GcFailed[${psQuote(q.id)}] = $_.Exception.Message }`);
  }
  lines.push('[ordered]@{ facts = $GcFacts; failed = $GcFailed } | ConvertTo-Json -Depth 7 -Compress');
  return lines.join('\n');
}

/**
 * The script that reads `queries` on a Linux node: per fact, "id TAB exit-status TAB base64(stdout)".
 * Each fact runs in a command substitution of its own (one fork), not in a new bash.
 */
export function linuxFactsScript(queries: FactQuery[], withStdin = false): string {
  const lines = [
    ...(withStdin ? ['GC_STDIN=$(cat)'] : []),
    'gc_out() { printf \'%s\\t%s\\t\' "$1" "$2"; printf \'%s\' "$3" | base64 -w0; printf \'\\n\'; }',
  ];
  for (const q of queries) {
    if (!q.sh) throw new Error(`fact ${q.id} has no bash form`);
    lines.push(`out=$({ ${q.sh}\n} 2>/dev/null); gc_out ${bashQuote(q.id)} "$?" "$out"`);
  }
  return lines.join('\n');
}

export interface LinuxFact {
  status: number;
  stdout: string;
  /** What the fact's command wrote on stderr (kept for failures' messages). */
  stderr?: string;
}

/** The facts that could not be read, each with what the node said: the phase fails with this. */
function unreadable(label: string, failed: [id: string, message: string][], stderr: string) {
  const list = failed.map(([id, message]) => `${id}: ${message.trim().split(/\r?\n/)[0]}`).join('; ');
  const said = stderr.trim() ? `; stderr: ${stderr.trim().split(/\r?\n/).slice(0, 3).join(' ')}` : '';
  return errors.GC_FACTS_FAILED(`${failed.length} fact(s) of ${label} could not be read: ${list}${said}`);
}

export async function gatherFacts(
  exec: Executor,
  queries: FactQuery[],
  opts: { signal?: AbortSignal; timeoutMs?: number; label: string; stdin?: string },
): Promise<Facts> {
  const facts = new Map<string, unknown>();
  if (queries.length === 0) return facts;
  const withStdin = opts.stdin !== undefined;
  const script = exec.os === 'windows' ? windowsFactsScript(queries, withStdin) : linuxFactsScript(queries, withStdin);
  const r = await exec.run(
    { script, label: `facts of ${opts.label}` },
    { timeoutMs: opts.timeoutMs ?? 60_000, signal: opts.signal, ...(withStdin ? { stdin: opts.stdin } : {}) },
  );
  if (r.exitCode !== 0)
    throw errors.GC_FACTS_FAILED(`reading the facts of ${opts.label} failed (exit ${r.exitCode}): ${r.stderr.trim().split('\n')[0] ?? ''}`);
  if (exec.os === 'windows') {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(r.stdout) as Record<string, unknown>;
    } catch (err) {
      throw errors.GC_FACTS_FAILED(`the facts of ${opts.label} are not JSON: ${r.stdout.slice(0, 120)}`, err);
    }
    const values = (parsed.facts ?? {}) as Record<string, unknown>;
    const failed = Object.entries((parsed.failed ?? {}) as Record<string, unknown>);
    if (failed.length > 0)
      throw unreadable(
        opts.label,
        failed.map(([id, message]) => [id, String(message)]),
        r.stderr,
      );
    for (const q of queries) {
      if (!(q.id in values)) throw errors.GC_FACTS_FAILED(`the facts of ${opts.label} lack ${q.id}`);
      facts.set(q.id, values[q.id] ?? null);
    }
    return facts;
  }
  for (const line of r.stdout.split('\n')) {
    const [id, status, encoded] = line.split('\t');
    if (id === undefined || status === undefined) continue;
    facts.set(id, { status: Number(status), stdout: Buffer.from(encoded ?? '', 'base64').toString('utf8') } satisfies LinuxFact);
  }
  for (const q of queries) if (!facts.has(q.id)) throw errors.GC_FACTS_FAILED(`the facts of ${opts.label} lack ${q.id}`);
  // A tool that is not there (127) or cannot run (126) reads nothing: that is a failure, not an absence.
  const failed = [...facts.entries()]
    .filter(([, f]) => (f as LinuxFact).status === 126 || (f as LinuxFact).status === 127)
    .map(([id, f]): [string, string] => [
      id,
      (f as LinuxFact).stderr || `exit ${(f as LinuxFact).status}: ${(f as LinuxFact).status === 127 ? 'command not found' : 'cannot run'}`,
    ]);
  if (failed.length > 0) throw unreadable(opts.label, failed, r.stderr);
  return facts;
}
