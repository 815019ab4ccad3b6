// The Linux facts wire: one bash script reads every fact and answers a length-prefixed record per fact,
// "id TAB status TAB bytes NEWLINE value NEWLINE", under LC_ALL=C so ${#v} counts bytes. No process is
// started for the framing: reads done by builtins start none at all (docs/BENCHMARKS.md, the no-op floor).

import { bashQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { FactQuery } from '../resource.js';

export interface LinuxFact {
  status: number;
  /** The value: a command's stdout (trailing newlines dropped, as by `$( )`), or what a builtin read left. */
  stdout: string;
}

/**
 * The script that reads `queries`. A `sh` fact runs in a command substitution (one process, the command
 * itself when it is a simple one: bash execs it in place); a `shBuiltin` fact runs in the script's own shell
 * as a function that leaves its value in `gc_v`, and starts nothing. stderr is discarded; the status is the fact's.
 */
export function linuxFactsScript(queries: FactQuery[], withStdin = false): string {
  const lines = [
    'LC_ALL=C',
    // Exact bytes, trailing newlines kept; read's status 1 is its end of input, expected here.
    ...(withStdin ? ["IFS= read -r -d '' GC_STDIN"] : []),
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's ${#gc_v} (bytes under LC_ALL=C), not a template
    'gc_o() { printf \'%s\\t%s\\t%s\\n%s\\n\' "$1" "$2" "${#gc_v}" "$gc_v"; }',
  ];
  for (const q of queries) {
    const id = bashQuote(q.id);
    if (q.sh !== undefined && q.shBuiltin === undefined) lines.push(`{ gc_v=$(${q.sh}\n); } 2>/dev/null; gc_o ${id} $?`);
    else if (q.shBuiltin !== undefined && q.sh === undefined)
      lines.push(`gc_v=; gc_f() { ${q.shBuiltin}\n}; gc_f >/dev/null 2>&1; gc_o ${id} $?`);
    else throw new Error(`fact ${q.id} needs one bash form (sh or shBuiltin)`);
  }
  return lines.join('\n');
}

const HEADER = /^([^\t]*)\t(\d{1,3})\t(\d{1,10})$/;

/**
 * The records of a facts script's stdout, by id. Every byte must belong to a record of a fact that was asked,
 * once: anything else (a truncated answer, a header out of place, a length that does not land on its newline,
 * an id not asked for, a status over 255) refuses the whole answer, saying where.
 */
export function readFactRecords(stdout: string, ids: ReadonlySet<string>, label: string): Map<string, LinuxFact> {
  // The executor decoded the bytes as UTF-8; encoding them back gives the same bytes unless some were not UTF-8.
  const bytes = Buffer.from(stdout, 'utf8');
  const bad = (what: string, at: number) => {
    const hint = stdout.includes('\uFFFD') ? ' (the answer holds bytes that are not UTF-8 text)' : '';
    return errors.GC_FACTS_FAILED(`the facts of ${label} are malformed at byte ${at} of ${bytes.length}: ${what}${hint}`);
  };
  const facts = new Map<string, LinuxFact>();
  let at = 0;
  while (at < bytes.length) {
    const newline = bytes.indexOf(0x0a, at);
    if (newline < 0) throw bad('a record header without its end (truncated?)', at);
    const header = bytes.toString('utf8', at, newline);
    const m = HEADER.exec(header);
    if (!m) throw bad(`not a record header: ${JSON.stringify(header.slice(0, 80))}`, at);
    const [, id = '', status = '', length = ''] = m;
    if (!ids.has(id)) throw bad(`a record for ${JSON.stringify(id.slice(0, 80))}, which was not asked`, at);
    if (facts.has(id)) throw bad(`a second record for ${id}`, at);
    if (Number(status) > 255) throw bad(`${id}: status ${status} is not an exit status`, at);
    const start = newline + 1;
    const end = start + Number(length);
    if (end >= bytes.length) throw bad(`${id} declares ${length} bytes, ${Math.max(bytes.length - start, 0)} follow (truncated?)`, at);
    if (bytes[end] !== 0x0a) throw bad(`${id}'s ${length} bytes do not end its record`, at);
    facts.set(id, { status: Number(status), stdout: bytes.toString('utf8', start, end) });
    at = end + 1;
  }
  for (const id of ids) if (!facts.has(id)) throw errors.GC_FACTS_FAILED(`the facts of ${label} lack ${id}`);
  return facts;
}

/** A fact that could not be read: 127 (no such tool), 126 (cannot run or read), or a value that is not text. */
export function unreadableFact(f: LinuxFact): string | undefined {
  if (f.stdout.includes('\uFFFD')) return 'its value is not UTF-8 text (a binary file?)';
  if (f.status !== 126 && f.status !== 127) return undefined;
  const said = f.stdout.trim().split('\n')[0]?.slice(0, 200);
  return `exit ${f.status}: ${said || (f.status === 127 ? 'command not found' : 'cannot run')}`;
}
