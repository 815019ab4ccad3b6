// Glob patterns of bash (case, [[ == ]]) as regular expressions: * ? [...] [!...], backslash quoting.

/** A pattern (glob: *, ?, [...]; backslash-quoted characters literal) as a regular expression's source. */
export function globSource(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '\\' && i + 1 < pattern.length) out += (pattern[++i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    else if (ch === '*') out += '[\\s\\S]*';
    else if (ch === '?') out += '[\\s\\S]';
    else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) out += '\\[';
      else {
        out += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}
