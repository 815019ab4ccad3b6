// How deep a YAML text nests, found by a scan of its indentation and brackets before anything parses it:
// the parser and every walk over its tree recurse, and 200,000 levels would overflow the stack.

/** An inventory nests a handful of levels; a hundred is far past any real one and far below the stack. */
export const MAX_DEPTH = 100;

/** The yaml package's own count of alias expansions (maxAliasCount); a real inventory uses a few. */
export const MAX_ALIAS_COUNT = 100;

/** A `|` or `>` block scalar header: its content lines hold text, not structure. */
const BLOCK_SCALAR = /^[|>][-+0-9]*\s*(#.*)?$/;

/**
 * Where the text first nests deeper than `max` (1-based line and column), or undefined. Conservative: it
 * counts every block indentation level, every `-`/`?`/`:` indicator and every open bracket, so it can
 * only over-count; quoted text, comments and block scalars are skipped.
 */
export function tooDeep(text: string, max = MAX_DEPTH): { line: number; col: number } | undefined {
  const indents: number[] = [];
  let flow = 0;
  let quote: '"' | "'" | undefined;
  let blockScalarAt: number | undefined;
  const lines = text.split('\n');
  for (const [n, raw] of lines.entries()) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const indent = line.length - line.trimStart().length;
    if (blockScalarAt !== undefined) {
      if (line.trim() === '' || indent > blockScalarAt) continue;
      blockScalarAt = undefined;
    }
    const continuing = quote !== undefined || flow > 0;
    if (!continuing) {
      const first = line.trimStart();
      if (first === '' || first.startsWith('#')) continue;
      while (indents.length > 0 && (indents.at(-1) as number) > indent) indents.pop();
      if (indents.length === 0 || (indents.at(-1) as number) < indent) indents.push(indent);
    }
    let compact = 0;
    for (let i = continuing ? 0 : indent; i < line.length; i++) {
      const c = line[i] as string;
      if (quote === '"') {
        if (c === '\\') i++;
        else if (c === '"') quote = undefined;
        continue;
      }
      if (quote === "'") {
        if (c === "'" && line[i + 1] === "'") i++;
        else if (c === "'") quote = undefined;
        continue;
      }
      const prev = i === 0 ? ' ' : (line[i - 1] as string);
      const atToken = /[\s[{,:?-]/.test(prev);
      if (c === '#' && /\s/.test(prev)) break;
      if ((c === '"' || c === "'") && atToken) quote = c;
      // In block context a bracket opens a collection only after a space (`a: [`, `- [`); `x[1]` is text.
      else if ((c === '[' || c === '{') && (flow > 0 || /\s/.test(prev))) flow++;
      else if ((c === ']' || c === '}') && flow > 0) flow--;
      else if (flow === 0 && (c === '-' || c === '?' || c === ':') && /^\s?$/.test(line[i + 1] ?? '') && atToken) compact++;
      else if (flow === 0 && (c === '|' || c === '>') && /\s/.test(prev) && BLOCK_SCALAR.test(line.slice(i))) {
        blockScalarAt = indent;
        break;
      }
      if (indents.length + compact + flow > max) return { line: n + 1, col: i + 1 };
    }
  }
  return undefined;
}
