// How much of a revision is kept: whatever a commit holds (30,000 bad files, a 1 MB subject), what is stored,
// logged, served and printed about it stays small.

/** Errors kept per rejected revision (the count of all of them is kept beside). */
export const ERRORS_KEPT = 100;
/** Characters of a commit subject (and of its author) kept. */
export const SUBJECT_CHARS = 200;
/** Characters of one error kept. */
export const ERROR_CHARS = 500;

/** `text` cut to `max` characters (code points, never half a surrogate pair), with an ellipsis when cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text.slice(0, max * 2 + 2));
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** The first ERRORS_KEPT errors, each cut, and how many there were. */
export function keptErrors(errors: readonly string[]): { errors: string[]; errorCount: number } {
  return { errors: errors.slice(0, ERRORS_KEPT).map((e) => cut(e, ERROR_CHARS)), errorCount: errors.length };
}
