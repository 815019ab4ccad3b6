// Nodes start at a bounded pace: in the order added, `perSecond` at a time (a token bucket, `burst` at most at
// once), and with a `window` no more started and not yet settled at once: what the workers can serve. Without
// a pace every node goes through at once (what a small cluster wants).
// Two users: cluster mode's ownership (src/cluster/ownership.ts) paces nodes a member takes (issue 19: 10,000
// machines started in one tick, each writing its snapshot and status to etcd, held the member's event loop past
// its lease renewal; started at a rate alone, all 10,000 were still running at once a few minutes later); and
// the reconciler's run window (run-window.ts) in both modes: a node's machine runs only while it holds a place
// (issue 18: 10,000 machines running at once held most of the single-process daemon's live heap).
//
// A node holds its place in the window until it settles, or for `holdMs` at most: a node that waits on
// another (a cross-node gate) whose own start is behind it in the queue must not stop every start for good.
// `startNow` lets such a node through at once: not a priority (the first lane below) but past the window and
// the rate.
//
// Nodes added `first` (a dead member's nodes it left mid-work) go before every node already waiting, not
// after: a member that had just taken back thousands of verified nodes (a rebalance) still had them queued
// when its peer died, and the node that peer was rebooting waited behind them all (issue 19: 49.2 s from the
// kill to the node's next command, against 8 to 11 s in the rounds whose new owner had no backlog).

export interface StartPace {
  /** Nodes let through per second, `burst` at most at once; no rate when not given. */
  perSecond?: number;
  burst?: number;
  /** Started and not settled, at most; unbounded when not given. */
  window?: number;
  /** How long a started node keeps its place in the window if it does not settle. */
  holdMs?: number;
}

export class StartPacer {
  /** Waiting, in the order they go: the `first` lane, then the others, each in the order added. */
  readonly #first = new Set<string>();
  readonly #waiting = new Set<string>();
  /** Started and not settled, with when each started. */
  readonly #active = new Map<string, number>();
  #tokens: number;
  #filledAt = performance.now();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly rate: StartPace | undefined,
    /** `first`: how many of `nodes` (at their front) came from the first lane. */
    private readonly start: (nodes: string[], first: number) => void,
  ) {
    this.#tokens = rate?.burst ?? 0;
  }

  get size(): number {
    return this.#first.size + this.#waiting.size;
  }

  /** Nodes holding a place in the window now. */
  get active(): number {
    return this.#active.size;
  }

  has(node: string): boolean {
    return this.#first.has(node) || this.#waiting.has(node);
  }

  /** Queues nodes to start; those `first` says so of go ahead of every node waiting that did not (still paced). */
  add(nodes: readonly string[], first: (node: string) => boolean = () => false): void {
    for (const node of nodes) {
      if (first(node)) {
        this.#waiting.delete(node);
        this.#first.add(node);
      } else if (!this.#first.has(node)) this.#waiting.add(node);
    }
    this.#release();
  }

  /** A node waiting in the other lane goes to the first (another node waits for it); false if it was not there. */
  moveFirst(node: string): boolean {
    if (!this.#waiting.delete(node)) return false;
    this.#first.add(node);
    this.#release();
    return true;
  }

  /** The node settled (or left): its place in the window goes to the next. */
  done(node: string): void {
    if (this.#active.delete(node)) this.#release();
  }

  /** A waiting node others wait for: through now, past the window and the rate (it takes a place). */
  startNow(node: string): void {
    const first = this.#first.delete(node);
    if (!first && !this.#waiting.delete(node)) return;
    if (this.rate?.window !== undefined) this.#active.set(node, performance.now());
    this.start([node], first ? 1 : 0);
  }

  remove(node: string): void {
    this.#first.delete(node);
    this.#waiting.delete(node);
    this.done(node);
  }

  clear(): void {
    this.#first.clear();
    this.#waiting.clear();
    this.#active.clear();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #release(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.size === 0) return;
    const rate = this.rate;
    let count = this.size;
    const now = performance.now();
    const holdMs = rate?.holdMs ?? 60_000;
    const perSecond = rate?.perSecond;
    if (perSecond !== undefined) {
      this.#tokens = Math.min(rate?.burst ?? perSecond, this.#tokens + ((now - this.#filledAt) / 1000) * perSecond);
      this.#filledAt = now;
    }
    if (rate?.window !== undefined) {
      for (const [node, at] of this.#active) if (now - at >= holdMs) this.#active.delete(node);
      count = Math.min(count, Math.max(0, rate.window - this.#active.size));
    }
    if (perSecond !== undefined) {
      count = Math.min(count, Math.floor(this.#tokens));
      this.#tokens -= count;
    }
    const nodes: string[] = [];
    for (const lane of [this.#first, this.#waiting])
      for (const node of lane) {
        if (nodes.length >= count) break;
        nodes.push(node);
      }
    let first = 0;
    for (const node of nodes) {
      if (this.#first.delete(node)) first++;
      else this.#waiting.delete(node);
      if (rate?.window !== undefined) this.#active.set(node, now);
    }
    if (this.size > 0 && rate) {
      // One token's time, but not under 100 ms: a fast rate lets nodes through in groups, not one timer each.
      // A full window is looked at again then too (a place held past holdMs is freed by time, not by an event);
      // without a rate, when the oldest place held runs out.
      let waitMs = perSecond !== undefined ? Math.max(1000 / perSecond, 100) : holdMs;
      if (perSecond === undefined) for (const at of this.#active.values()) waitMs = Math.min(waitMs, at + holdMs - now);
      this.#timer = setTimeout(
        () => {
          this.#timer = undefined;
          this.#release();
        },
        Math.max(waitMs, 100),
      );
      this.#timer.unref();
    }
    if (nodes.length > 0) this.start(nodes, first);
  }
}
