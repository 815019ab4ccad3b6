// Gathers the facts of many resources in one command: one PowerShell script answering JSON, or one bash
// script answering a length-prefixed record per fact (linux/fact-records.ts).

import type { Executor } from '../dataplane/executor.js';
import { psQuote } from '../dataplane/quote.js';
import { errors } from '../errors.js';
import { linuxFactsScript, readFactRecords, unreadableFact } from './linux/fact-records.js';
import type { FactQuery, Facts } from './resource.js';

export type { LinuxFact } from './linux/fact-records.js';

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

/** The facts that could not be read, each with what the node said: the phase fails with this. */
function unreadable(label: string, failed: [id: string, message: string][], stderr: string) {
  const list = failed.map(([id, message]) => `${id}: ${message.trim().split(/\r?\n/)[0]}`).join('; ');
  const said = stderr.trim() ? `; stderr: ${stderr.trim().split(/\r?\n/).slice(0, 3).join(' ')}` : '';
  return errors.GC_FACTS_FAILED(`${failed.length} fact(s) of ${label} could not be read: ${list}${said}`);
}

/** Two resources may read one fact (one id, one query): it is read once. One id asked two ways is a bug. */
export function oncePerId(queries: FactQuery[]): FactQuery[] {
  const byId = new Map<string, FactQuery>();
  for (const q of queries) {
    const seen = byId.get(q.id);
    if (seen && (seen.ps !== q.ps || seen.sh !== q.sh || seen.shBuiltin !== q.shBuiltin))
      throw new Error(`fact ${q.id} is asked two different ways`);
    byId.set(q.id, q);
  }
  return [...byId.values()];
}

export async function gatherFacts(
  exec: Executor,
  queries: FactQuery[],
  opts: { signal?: AbortSignal; timeoutMs?: number; label: string; stdin?: string },
): Promise<Facts> {
  if (queries.length === 0) return new Map();
  queries = oncePerId(queries);
  const withStdin = opts.stdin !== undefined;
  const r = await exec.run(
    { script: factsScript(exec.os, queries, withStdin), label: `facts of ${opts.label}` },
    { timeoutMs: opts.timeoutMs ?? 60_000, signal: opts.signal, ...(withStdin ? { stdin: opts.stdin } : {}) },
  );
  if (r.exitCode !== 0)
    throw errors.GC_FACTS_FAILED(`reading the facts of ${opts.label} failed (exit ${r.exitCode}): ${r.stderr.trim().split('\n')[0] ?? ''}`);
  return readFacts(exec.os, queries, r.stdout, r.stderr, opts.label);
}

/** The script that reads `queries` (each id once) on a node of `os`. */
export function factsScript(os: Executor['os'], queries: FactQuery[], withStdin = false): string {
  return os === 'windows' ? windowsFactsScript(queries, withStdin) : linuxFactsScript(queries, withStdin);
}

/** The facts in what a facts script printed; throws GC_FACTS_FAILED naming what could not be read. */
export function readFacts(os: Executor['os'], queries: FactQuery[], stdout: string, stderr: string, label: string): Facts {
  if (os === 'windows') {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(stdout) as Record<string, unknown>;
    } catch (err) {
      throw errors.GC_FACTS_FAILED(`the facts of ${label} are not JSON: ${stdout.slice(0, 120)}`, err);
    }
    const values = (parsed.facts ?? {}) as Record<string, unknown>;
    const failed = Object.entries((parsed.failed ?? {}) as Record<string, unknown>);
    if (failed.length > 0)
      throw unreadable(
        label,
        failed.map(([id, message]) => [id, String(message)]),
        stderr,
      );
    const facts = new Map<string, unknown>();
    for (const q of queries) {
      if (!(q.id in values)) throw errors.GC_FACTS_FAILED(`the facts of ${label} lack ${q.id}`);
      facts.set(q.id, values[q.id] ?? null);
    }
    return facts;
  }
  const records = readFactRecords(stdout, new Set(queries.map((q) => q.id)), label);
  const failed = [...records.entries()].flatMap(([id, f]): [string, string][] => {
    const why = unreadableFact(f);
    return why === undefined ? [] : [[id, why]];
  });
  if (failed.length > 0) throw unreadable(label, failed, stderr);
  return records;
}
