// The one test for control characters in a value that reaches a file, a command or a protocol line: a line
// break there starts a new line of the reader's own (a second `KEY=` in an env file, a second `password=` in git's
// credential protocol). C0, DEL, C1 and the Unicode line and paragraph separators.

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const NAMES: Record<string, string> = { '\n': 'a line break', '\r': 'a carriage return', '\t': 'a tab', '\u0000': 'a NUL' };

/** The first control character of `text`, named for a message (`a line break (U+000A)`), or undefined. */
export function controlCharacter(text: string): string | undefined {
  const found = CONTROL.exec(text)?.[0];
  if (found === undefined) return undefined;
  const code = `U+${found.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `${NAMES[found] ?? 'a control character'} (${code})`;
}
