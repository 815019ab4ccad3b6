// Gathers the facts of many resources in one command: one PowerShell script answering JSON, or one bash
// script answering tab-separated base64 lines.

import type { Executor } from '../dataplane/executor.js';
import { bashQuote, psQuote } from '../dataplane/quote.js';
import { errors } from '../errors.js';
import type { FactQuery, Facts } from './resource.js';

/** The script that reads `queries` on a Windows node; exported so tests can parse every one. */
export function windowsFactsScript(queries: FactQuery[], withStdin = false): string {
  const lines = [...(withStdin ? ['$GcStdin = [Console]::In.ReadToEnd()'] : []), '$f = [ordered]@{}'];
  for (const q of queries) {
    if (!q.ps) throw new Error(`fact ${q.id} has no PowerShell form`);
    // $( ) lets a fact be several statements; one item comes back as itself, none as $null.
    // A fact that cannot be read is null, not a failed phase: absence is a fact too.
    lines.push(`try { $f[${psQuote(q.id)}] = $(${q.ps}) } catch { $f[${psQuote(q.id)}] = $null }`);
  }
  lines.push('$f | ConvertTo-Json -Depth 6 -Compress');
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
    for (const q of queries) facts.set(q.id, parsed[q.id] ?? null);
    return facts;
  }
  for (const line of r.stdout.split('\n')) {
    const [id, status, encoded] = line.split('\t');
    if (id === undefined || status === undefined) continue;
    facts.set(id, { status: Number(status), stdout: Buffer.from(encoded ?? '', 'base64').toString('utf8') } satisfies LinuxFact);
  }
  for (const q of queries) if (!facts.has(q.id)) throw errors.GC_FACTS_FAILED(`the facts of ${opts.label} lack ${q.id}`);
  return facts;
}
