// Which nodes this process drives (coordination.ts): all of them alone (local-coordination.ts); in cluster mode
// (src/cluster/), those it owns.

/**
 * `yes`: drive it. `hand-over`: another member should drive it: stop at the next settled state and say so
 * with `letGo`. `no`: not this process's node (any more): stop now.
 */
export interface NodeScope {
  drives(node: string): 'yes' | 'hand-over' | 'no';
  letGo(node: string): void;
  /** The node is in a settled state here (said on every look; cluster mode paces new nodes' starts by it). */
  settled(node: string): void;
  /** A node that starts first: ahead of the nodes waiting for a place in the run window (cluster mode: a failover's). */
  startsFirst(node: string): boolean;
  /** A node another process drives: its state, and whether it is verified on its desired revision (for gates). */
  elsewhere(node: string): { state: string; onDesired: boolean } | undefined;
}
