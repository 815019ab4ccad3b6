// How deep a YAML text nests, found by a scan of its indentation and brackets before anything parses it:
// the parser and every walk over its tree recurse, and 200,000 levels would overflow the stack.

/** An inventory nests a handful of levels; a hundred is far past any real one and far below the stack. */
export const MAX_DEPTH = 100;

/** The yaml package's own count of alias expansions (maxAliasCount); a real inventory uses a few. */
export const MAX_ALIAS_COUNT = 100;

/** A `|` or `>` block scalar header (with its optional indentation and chomping indicators). */
const BLOCK_SCALAR = /^[|>]([1-9][-+]?|[-+][1-9]?)?(\s+#.*|\s*)$/;

/**
 * Where the text first nests deeper than `max` (1-based line and column), or undefined. Built to err on
 * the side of counting too much, never too little: every line's indentation level, every `-`/`?`
 * indicator and every open bracket count; a quote is skipped only to the end of its line, a comment
 * only where YAML must read one, and a block scalar's lines only where they are certainly its content.
 */
export function tooDeep(text: string, max = MAX_DEPTH): { line: number; col: number } | undefined {
  const indents: number[] = [];
  let flow = 0;
  let blockScalarAt: number | undefined;
  for (const [n, line] of text.split(/\r\n|\r|\n/).entries()) {
    const indent = line.length - line.trimStart().length;
    if (blockScalarAt !== undefined) {
      if (line.trim() === '' || indent > blockScalarAt) continue;
      blockScalarAt = undefined;
    }
    if (line.trim() === '') continue;
    while (indents.length > 0 && (indents.at(-1) as number) > indent) indents.pop();
    if (indents.length === 0 || (indents.at(-1) as number) < indent) indents.push(indent);
    let compact = 0;
    /** Where the innermost node of this line starts: a block scalar's content lies right of it. */
    let nodeAt = indent;
    let quote: '"' | "'" | undefined;
    let last = ''; // the last character that was not a space, on this line
    for (let i = indent; i < line.length; i++) {
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
      const space = /\s/.test(prev);
      if (/\s/.test(c)) continue;
      if (c === '#' && space) break;
      // A quoted scalar starts only where a node can: first on the line, or after an indicator.
      if ((c === '"' || c === "'") && (last === '' || '-?:[{,'.includes(last))) quote = c;
      else if ((c === '[' || c === '{') && (flow > 0 || space)) flow++;
      else if ((c === ']' || c === '}') && flow > 0) flow--;
      else if (flow === 0 && (c === '-' || c === '?') && space && /^\s?$/.test(line[i + 1] ?? '')) {
        compact++;
        const next = line.slice(i + 1).search(/\S/);
        nodeAt = next < 0 ? line.length : i + 1 + next;
      } else if (flow === 0 && (c === '|' || c === '>') && space && BLOCK_SCALAR.test(line.slice(i))) {
        blockScalarAt = nodeAt;
        break;
      }
      last = c;
      if (indents.length + compact + flow > max) return { line: n + 1, col: i + 1 };
    }
  }
  return undefined;
}
