// PowerShell string literals: 'verbatim' (with its doubled quotes) and "expandable" ($var, $(...), `n).

import { PsUnmodelled } from './errors.js';
import type { Node } from './parser.js';
import { toText } from './values.js';

/** Single-quote characters: PowerShell ends a verbatim string at any of them, and a doubled pair is one. */
const SINGLE_QUOTES = /['\u2018\u2019\u201A\u201B]/;

function verbatim(body: string, node: Node): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (SINGLE_QUOTES.test(ch)) {
      // The grammar only knows ASCII quotes; PowerShell would have ended the string at a lone typographic one.
      if (!SINGLE_QUOTES.test(body[i + 1] ?? ''))
        throw new PsUnmodelled(`groundcrew sim: a lone ${ch} inside '${node.text.slice(0, 30)}' ends the string in PowerShell`);
      out += body[++i];
    } else out += ch;
  }
  return out;
}

/** The value of a string literal node; `insert` evaluates the $var and $(...) inside an expandable one. */
export function stringLiteral(node: Node, insert: (node: Node) => unknown): string {
  const literal = node.type === 'string_literal' ? (node.child(0) ?? node) : node;
  const text = literal.text;
  if (literal.type === 'verbatim_string_characters') return verbatim(text.slice(1, -1), literal);
  if (literal.type === 'verbatim_here_string_characters') return text.replace(/^@'\r?\n/, '').replace(/\r?\n'@$/, '');
  const here = literal.type === 'expandable_here_string_literal';
  const start = literal.startIndex;
  const body = here ? text.replace(/^@"\r?\n/, '').replace(/\r?\n"@$/, '') : text.slice(1, -1);
  const bodyStart = start + (here ? text.indexOf('\n') + 1 : 1);
  const inserts = literal.namedChildren
    .filter((c): c is Node => c !== null && (c.type === 'variable' || c.type === 'sub_expression'))
    .map((c) => ({ from: c.startIndex - bodyStart, to: c.endIndex - bodyStart, node: c }));
  let out = '';
  let i = 0;
  const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', '0': '\0', a: '\x07', '`': '`', '"': '"', $: '$', "'": "'" };
  while (i < body.length) {
    const at = inserts.find((x) => x.from === i);
    if (at) {
      const value = insert(at.node);
      out += toText(value);
      i = at.to;
      continue;
    }
    const ch = body[i] as string;
    if (ch === '`' && i + 1 < body.length) {
      const next = body[i + 1] as string;
      out += ESCAPES[next] ?? next;
      i += 2;
    } else if (ch === '"' && body[i + 1] === '"' && !here) {
      out += '"';
      i += 2;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}
