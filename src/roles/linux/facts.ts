// Reading Linux facts: each is a bash command whose exit status and stdout come back.

import type { LinuxFact } from '../facts.js';

export function fact(facts: ReadonlyMap<string, unknown>, id: string): LinuxFact {
  return (facts.get(id) as LinuxFact | undefined) ?? { status: 127, stdout: '' };
}

/** The content of a file, or null when it is absent: a fact query and its reader. */
export function fileFact(id: string, path: string, bashQuote: (s: string) => string) {
  // The trailing '.' keeps the file's last newlines: command substitution strips trailing newlines.
  return { id, sh: `if [ -f ${bashQuote(path)} ]; then printf 'present\\n'; cat ${bashQuote(path)}; printf '.'; else printf 'absent'; fi` };
}

export function fileContent(facts: ReadonlyMap<string, unknown>, id: string): string | null {
  const { stdout } = fact(facts, id);
  return stdout.startsWith('present\n') ? stdout.slice('present\n'.length, -1) : null;
}
