// Newly owned nodes start driving at a bounded rate (a token bucket): a member that takes thousands of nodes
// at once (a fresh cluster, a failover) lets them into the reconciler `perSecond` at a time, `burst` at most
// at once, in the order taken. Without a rate every node goes through at once (what a small cluster wants).
// Issue 19: 10,000 machines started in one tick, each writing its snapshot and status to etcd, held the
// member's event loop past its lease renewal and it fenced itself, lost its lease, and took everything again.

export class StartGate {
  readonly #waiting = new Set<string>();
  #tokens: number;
  #filledAt = performance.now();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rate: { perSecond: number; burst: number } | undefined,
    private readonly start: (nodes: string[]) => void,
  ) {
    this.#tokens = rate?.burst ?? 0;
  }

  get size(): number {
    return this.#waiting.size;
  }

  add(nodes: readonly string[]): void {
    for (const node of nodes) this.#waiting.add(node);
    this.#release();
  }

  remove(node: string): void {
    this.#waiting.delete(node);
  }

  clear(): void {
    this.#waiting.clear();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #release(): void {
    if (this.#timer || this.#waiting.size === 0) return;
    const rate = this.rate;
    let count = this.#waiting.size;
    if (rate) {
      const now = performance.now();
      this.#tokens = Math.min(rate.burst, this.#tokens + ((now - this.#filledAt) / 1000) * rate.perSecond);
      this.#filledAt = now;
      count = Math.min(count, Math.floor(this.#tokens));
      this.#tokens -= count;
    }
    const nodes: string[] = [];
    for (const node of this.#waiting) {
      if (nodes.length >= count) break;
      nodes.push(node);
    }
    for (const node of nodes) this.#waiting.delete(node);
    if (this.#waiting.size > 0 && rate) {
      // One token's time, but not under 100 ms: a fast rate lets nodes through in groups, not one timer each.
      const waitMs = Math.max(1000 / rate.perSecond, 100);
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#release();
      }, waitMs);
      this.#timer.unref();
    }
    if (nodes.length > 0) this.start(nodes);
  }
}
