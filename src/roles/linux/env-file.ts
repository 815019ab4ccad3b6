// An env file holding credentials: written through stdin, kept 0600, compared without printing it.

import { bashQuote } from '../../dataplane/quote.js';
import { oneLineEach } from '../config-lines.js';
import { setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { fact, fileContent, fileFact } from './facts.js';

/** The file's text; throws (GC_UNSAFE_VALUE) rather than let a value's line break add a line of its own. */
export function envFile(file: string, environment: Record<string, string>): string {
  const lines = Object.keys(environment)
    .sort()
    .map((k) => `${k}=${environment[k]}`);
  return `${oneLineEach(file, lines).join('\n')}\n`;
}

export function envFileResource(name: string, path: string, content: string): Resource {
  const id = `env.${name}`;
  return {
    name: `env/${name}`,
    facts: [fileFact(id, path, bashQuote), { id: `${id}.mode`, sh: `stat -c %a ${bashQuote(path)}` }],
    test: (facts) =>
      compare({ Content: [fileContent(facts, id) === content, true], Mode: [fact(facts, `${id}.mode`).stdout.trim(), '600'] }),
    set({ exec, signal }) {
      const dir = path.slice(0, path.lastIndexOf('/'));
      return setByCommand(exec, `mkdir -p ${bashQuote(dir)} && install -m 0600 /dev/stdin ${bashQuote(path)}`, `write ${path}`, {
        stdin: content,
        signal,
      });
    },
  };
}
