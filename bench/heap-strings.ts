// The "strings" section of a V8 heap snapshot, read as it streams by: each string's first characters, decoded.
// heap-breakdown.ts and heap-retainers.ts both need only names from it, and a 10,000-node daemon's snapshot
// holds strings (and a whole file) longer than V8's longest string, so nothing is read whole.

/** Raw characters kept of a string's body: enough to decode the head shown. */
const RAW = 400;

export class SnapshotStrings {
  readonly strings: string[] = [];
  #inString = false;
  #current = '';
  /** Backslashes at the end of what was seen of the string so far (the kept head may be cut short). */
  #trailing = 0;

  /** Reads the next piece of the section (after its `[`); true once its closing `]` was read. */
  feed(text: string): boolean {
    let i = 0;
    while (i < text.length) {
      if (!this.#inString) {
        const quote = text.indexOf('"', i);
        const end = text.indexOf(']', i);
        if (end >= 0 && (quote < 0 || end < quote)) return true;
        if (quote < 0) return false;
        this.#inString = true;
        this.#current = '';
        this.#trailing = 0;
        i = quote + 1;
        continue;
      }
      const quote = text.indexOf('"', i);
      const end = quote < 0 ? text.length : quote;
      if (this.#current.length < RAW) this.#current += text.slice(i, Math.min(end, i + RAW));
      this.#seen(text, i, end);
      if (quote < 0) return false;
      i = quote + 1;
      // An escaped quote: the run of backslashes before it is odd.
      if (this.#trailing % 2 === 1) {
        this.#current += '"';
        this.#trailing = 0;
        continue;
      }
      this.#inString = false;
      this.strings.push(decodeHead(this.#current));
    }
    return false;
  }

  #seen(text: string, from: number, to: number): void {
    let n = 0;
    while (to - 1 - n >= from && text.charCodeAt(to - 1 - n) === 92) n++;
    this.#trailing = n === to - from ? this.#trailing + n : n;
  }
}

/** The first characters of a JSON string's body, decoded (a cut in the middle of an escape is cut back). */
function decodeHead(body: string): string {
  let head = body.slice(0, 200);
  for (let i = 0; i < 8; i++) {
    try {
      return (JSON.parse(`"${head}"`) as string).slice(0, 80);
    } catch {
      head = head.slice(0, -1);
    }
  }
  return '?';
}
