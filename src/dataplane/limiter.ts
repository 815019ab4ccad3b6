// A counting semaphore: the global cap on open SSH connections, and the per-connection channel limit.

export class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly max: number) {}

  get active(): number {
    return this.#active;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.#active < this.max) {
      this.#active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(grant);
    });
  }

  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#active--;
  }
}
