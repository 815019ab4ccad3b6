// Which nodes wait on which: for each node a gate waits for, the nodes whose plan's gates name it. A settle wakes
// only those (gates.ts `wakeDependents`) instead of looking at every node's gates: at every settle over every
// node that look was quadratic in the node count (2,000 nodes: 2.5 million looks in one converge).

export class GateDependents {
  readonly #of = new Map<string, Set<string>>();

  /** `node` now waits on `now` (it waited on `before`; a node new or gone waits on nothing). */
  note(node: string, before: ReadonlySet<string>, now: ReadonlySet<string>): void {
    if (before === now) return;
    for (const target of before) {
      if (now.has(target)) continue;
      const waiting = this.#of.get(target);
      waiting?.delete(node);
      if (waiting?.size === 0) this.#of.delete(target);
    }
    for (const target of now) {
      const waiting = this.#of.get(target);
      if (waiting) waiting.add(node);
      else this.#of.set(target, new Set([node]));
    }
  }

  /** The nodes that wait on `target`, in the order they first did. */
  of(target: string): Iterable<string> {
    return this.#of.get(target) ?? [];
  }
}
