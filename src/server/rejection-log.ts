// Refused webhooks in the log without a line each: anyone can post to /hooks/*, and 3,000 bad signatures used to
// write 3,000 warnings. The first refusal after a quiet spell is logged at once (an operator with a wrong secret
// sees it); those that follow within the period are counted, and said in one line when it ends, with their
// reasons and a few of their senders. A flood writes one line a period, however fast it comes.

import type { Logger } from 'pino';

/** How many distinct senders a summary names. */
const SENDERS_SHOWN = 5;

interface Pending {
  count: number;
  reasons: Record<string, number>;
  from: Set<string>;
}

export class RejectionLog {
  #pending?: Pending;
  #timer?: NodeJS.Timeout;

  constructor(
    private readonly log: Logger,
    private readonly periodMs: number,
  ) {}

  /** One refused webhook: `reason` in a few words (the signature check's, or "rate limited"). */
  rejected(hook: string, reason: string, from: string): void {
    if (!this.#timer) {
      this.log.warn({ hook, reason, from }, 'webhook rejected');
      this.#arm();
      return;
    }
    this.#pending ??= { count: 0, reasons: {}, from: new Set() };
    const pending = this.#pending;
    pending.count++;
    const key = `${hook}: ${reason}`;
    pending.reasons[key] = (pending.reasons[key] ?? 0) + 1;
    if (pending.from.size < SENDERS_SHOWN) pending.from.add(from);
  }

  /** Says what is still counted; for the server's close. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flush();
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      // Quiet for a whole period: the next refusal is logged at once again.
      if (this.#flush()) this.#arm();
      else this.#timer = undefined;
    }, this.periodMs);
    this.#timer.unref();
  }

  #flush(): boolean {
    const pending = this.#pending;
    this.#pending = undefined;
    if (!pending) return false;
    const seconds = Math.round(this.periodMs / 1000);
    this.log.warn(
      { rejected: pending.count, reasons: pending.reasons, from: [...pending.from] },
      `${pending.count} more webhook${pending.count === 1 ? '' : 's'} rejected in the last ${seconds}s`,
    );
    return true;
  }
}
