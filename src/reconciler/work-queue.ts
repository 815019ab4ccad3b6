// client-go's work queue, for node names: an event for a queued key is merged, a key being processed is
// never handed to a second worker (an event meanwhile marks it dirty and it comes back once), and at most
// `concurrency` keys are processed at once. Work starts on a microtask, never inside the caller of `add`: a
// node machine's observer asks for its node's follow-up here, and that work must not run inside the observer.

export class WorkQueue {
  readonly #queue: string[] = [];
  readonly #queued = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #idle: (() => void)[] = [];
  #stopped = false;

  constructor(
    private readonly concurrency: number,
    private readonly work: (key: string) => Promise<void>,
    private readonly onError: (key: string, err: unknown) => void = () => undefined,
  ) {}

  /** Marks a key for work; repeated adds before it is picked up count once. */
  add(key: string): void {
    if (this.#stopped) return;
    if (this.#processing.has(key)) {
      this.#dirty.add(key);
      return;
    }
    if (this.#queued.has(key)) return;
    this.#queued.add(key);
    this.#queue.push(key);
    this.#pump();
  }

  get depth(): number {
    return this.#queue.length;
  }

  get active(): number {
    return this.#processing.size;
  }

  /** Resolves when nothing is queued or being processed. */
  drained(): Promise<void> {
    if (this.#queue.length === 0 && this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** No new work; what runs finishes. */
  stop(): Promise<void> {
    this.#stopped = true;
    this.#queue.length = 0;
    this.#queued.clear();
    this.#dirty.clear();
    return this.drained();
  }

  #pump(): void {
    while (this.#processing.size < this.concurrency && this.#queue.length > 0) {
      const key = this.#queue.shift() as string;
      this.#queued.delete(key);
      this.#processing.add(key);
      void Promise.resolve()
        .then(() => this.work(key))
        .catch((err: unknown) => this.onError(key, err))
        .finally(() => {
          this.#processing.delete(key);
          if (this.#dirty.delete(key)) this.add(key);
          this.#pump();
          if (this.#queue.length === 0 && this.#processing.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
        });
    }
  }
}

/** `maxUnavailable` (a count or "25%") of `total` nodes, as a count: at least 1, so a rollout can move. */
export function budgetOf(value: number | string, total: number): number {
  if (typeof value === 'number') return Math.max(1, value);
  const percent = /^(\d+)%$/.exec(value);
  if (!percent) throw new Error(`"${value}" is not a count or a percentage`);
  return Math.max(1, Math.floor((total * Number(percent[1])) / 100));
}

/** The disruption budget: how many nodes may have their data plane down at once. */
export class DisruptionBudget {
  readonly #holders = new Set<string>();
  readonly #waiting: { node: string; grant: () => void }[] = [];

  constructor(public limit: number) {}

  get holders(): string[] {
    return [...this.#holders];
  }

  /** A new policy (a commit changed maxUnavailable, or the node count): waiting nodes get freed slots. */
  resize(limit: number): void {
    this.limit = limit;
    while (this.#holders.size < this.limit && this.#waiting.length > 0) {
      const next = this.#waiting.shift() as { node: string; grant: () => void };
      this.#holders.add(next.node);
      next.grant();
    }
  }

  /** Waits for a slot; a node already holding one gets it again at once. */
  acquire(node: string): Promise<void> {
    if (this.#holders.has(node) || this.#holders.size < this.limit) {
      this.#holders.add(node);
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push({ node, grant: resolve }));
  }

  /** Counts a node as holding a slot whatever the limit: it is down already (found mid-reboot on restart). */
  take(node: string): void {
    this.#holders.add(node);
  }

  release(node: string): void {
    if (this.#holders.delete(node)) this.resize(this.limit);
  }
}
