// A Git source that cannot clone or fetch: since when, how many attempts in a row, git's last word (already
// redacted), and how long to wait before the next attempt. The daemon stays up through it: the last good
// revision stays in force, /readyz, the status page and /metrics say the source is stalled.

/** The longest wait between attempts while the server is away (or the poll interval, when that is longer). */
const MAX_BACKOFF_MS = 5 * 60_000;

export interface SourceFailure {
  /** What failed and git's first line, credentials masked. */
  message: string;
  /** When the first failure of this run of failures happened (ms since the epoch). */
  since: number;
  attempts: number;
}

export class SourceOutage {
  #failure?: SourceFailure;

  get failure(): SourceFailure | undefined {
    return this.#failure;
  }

  /** Records a failed attempt; true when it is news (the first one, or a different error than the last). */
  failed(message: string, now = Date.now()): boolean {
    const previous = this.#failure;
    this.#failure = { message, since: previous?.since ?? now, attempts: (previous?.attempts ?? 0) + 1 };
    return previous?.message !== message;
  }

  /** The source fetched again; true when it had been failing. */
  recovered(): boolean {
    const was = this.#failure !== undefined;
    this.#failure = undefined;
    return was;
  }

  /** The wait before the next attempt: the poll interval, doubled for each failure in a row, up to MAX_BACKOFF_MS. */
  delayMs(pollMs: number): number {
    const attempts = this.#failure?.attempts ?? 0;
    if (attempts === 0) return pollMs;
    return Math.min(pollMs * 2 ** (attempts - 1), Math.max(pollMs, MAX_BACKOFF_MS));
  }
}

/** What git said went wrong, on one line: its stderr without the progress and the closing advice. */
export function gitProblem(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^Cloning into /.test(line));
  const advice = lines.findIndex((line) => /^Please make sure you have the correct access rights/.test(line));
  const said = (advice < 0 ? lines : lines.slice(0, advice)).join(' ');
  return said.length > 400 ? `${said.slice(0, 400)}…` : said || 'git said nothing';
}
