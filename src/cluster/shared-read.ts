// One read shared by every caller that asks while it has not started: callers get an answer read after they
// asked (never an older one), and a thousand callers at once cost one call to etcd, not a thousand.

export class SharedRead<T> {
  #next: Promise<T> | undefined;
  #current: Promise<unknown> | undefined;
  /** Reads started. */
  count = 0;

  constructor(private readonly read: () => Promise<T>) {}

  /** The answer of the next read to start (after the one out now, if any, and after this turn of the event loop). */
  get(): Promise<T> {
    if (this.#next) return this.#next;
    const after = this.#current ?? new Promise<void>((resolve) => setImmediate(resolve));
    const next = after
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        this.count++;
        const current = this.read();
        this.#current = current;
        void current
          .catch(() => undefined)
          .finally(() => {
            if (this.#current === current) this.#current = undefined;
          });
        return current;
      });
    this.#next = next;
    return next;
  }
}
