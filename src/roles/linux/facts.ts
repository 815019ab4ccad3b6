// Reading Linux facts: each is a bash command (or builtins) whose status and value come back.

import type { LinuxFact } from './fact-records.js';

export function fact(facts: ReadonlyMap<string, unknown>, id: string): LinuxFact {
  return (facts.get(id) as LinuxFact | undefined) ?? { status: 127, stdout: '' };
}

/**
 * The content of a file, by builtins (no process): status 0 and its exact bytes, trailing newlines included;
 * 1 when it is not a regular file; 126 (a fact that cannot be read) when it cannot be opened or holds a NUL
 * byte, which a shell variable cannot hold: binary files are refused, never cut short.
 */
export function fileFact(id: string, path: string, bashQuote: (s: string) => string) {
  const p = bashQuote(path);
  return {
    id,
    shBuiltin: [
      `[[ -f ${p} ]] || return 1`,
      'local gc_r=x',
      `{ IFS= read -r -d '' gc_v; gc_r=$?; } < ${p}`,
      // read's 1 is the end of the file, reached without meeting a NUL: the whole file is in gc_v.
      '[[ $gc_r = 1 ]] && return 0',
      `[[ $gc_r = 0 ]] && gc_v=${bashQuote(`${path} holds a NUL byte: not a text file`)} || gc_v=${bashQuote(`${path} cannot be read`)}`,
      'return 126',
    ].join('\n'),
  };
}

export function fileContent(facts: ReadonlyMap<string, unknown>, id: string): string | null {
  const f = fact(facts, id);
  return f.status === 0 ? f.stdout : null;
}

/** Whether a directory is there, by a builtin test. */
export function dirFact(id: string, path: string, bashQuote: (s: string) => string) {
  return { id, shBuiltin: `[[ -d ${bashQuote(path)} ]]` };
}

/** A network interface's flags from sysfs (hex, e.g. `0x1003`), or status 1 when there is no such interface. */
export function linkFact(id: string, name: string, bashQuote: (s: string) => string) {
  const flags = bashQuote(`/sys/class/net/${name}/flags`);
  return { id, shBuiltin: `[[ -f ${flags} ]] || return 1\nread -r gc_v < ${flags}` };
}

/** Whether the interface is there and administratively up (IFF_UP, what `ip link` shows as UP). */
export function linkUp(facts: ReadonlyMap<string, unknown>, id: string): boolean {
  const f = fact(facts, id);
  const flags = f.stdout.trim();
  return f.status === 0 && /^0x[0-9a-f]{1,8}$/i.test(flags) && (Number.parseInt(flags, 16) & 1) === 1;
}
