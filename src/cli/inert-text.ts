// Text from outside (commit subjects, authors, node errors, node names, diagnostics) made safe for a
// terminal: every control character is shown, never interpreted, so a commit cannot retitle, clear or
// rewrite the operator's terminal, nor hide text behind bidirectional overrides.

// C0 controls, DEL, C1 controls (0x9b is a one-byte CSI), and the bidi embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is what this file is for
const CONTROL_BUT_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const visible = (c: string): string => {
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** One line of untrusted text with every control character visible: ESC prints as `\x1b`, a newline as `\x0a`. */
export function inert(text: string | undefined | null): string {
  return String(text ?? '').replace(CONTROL, visible);
}

/** The same, keeping newlines and tabs: for multi-line text such as diagnostics. */
export function inertLines(text: string): string {
  return text.replace(CONTROL_BUT_LINES, visible);
}

/** JSON for a terminal: JSON.stringify escapes C0 but not C1 or bidi controls; those become \u escapes too. */
export function inertJson(json: string): string {
  return json.replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
