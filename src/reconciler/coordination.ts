// The one seam between the reconciler (and the daemon) and the rest of the cluster: which nodes this process
// drives, the disruption and failure budgets beyond it, where node snapshots live, the fence every command
// passes, where the server reads a node driven elsewhere, and which revision is in force. Two implementations,
// one code path: local-coordination.ts (one process drives every node) and cluster/cluster-member.ts (etcd).

import type { HostKeyStore, PinStore } from '../dataplane/host-keys.js';
import type { Revision } from '../source/source.js';
import type { NodeScope } from './node-scope.js';
import type { SharedFailures, SharedSlots } from './rollout.js';
import type { NodeSnapshots } from './snapshot-store.js';
import type { NodeDetailSource } from './status-store.js';

/** What the coordination asks of the reconciler, which listens to it from its constructor. */
export interface CoordinationListener {
  /** The scope changed: these nodes (none named: every node) are looked at again. */
  rescope(nodes?: readonly string[]): void;
  /** A node driven elsewhere became verified: nodes gated on it try again now. */
  wake(node: string): void;
  /** A pass on these nodes now (they waited out a fence in backoff). */
  request(nodes: string[]): unknown;
  /** The failure record beyond this process changed: halted rollouts look again. */
  failuresChanged(): void;
}

/** The fence: whether this process may change a node now. */
export interface Fence {
  /**
   * Settles when a command to `node` may go out now (what the node's machine recorded so far is durable, and the
   * node is this process's to change); throws why not, a GroundcrewError with its code, when it may not.
   */
  guard(node: string): Promise<void>;
  /** Whether this process may still write to `node`: a transport checks it before every write to the node's socket. */
  open(node: string): boolean;
}

/** Where revisions come from and go: the source (a commit by its sha, a fetch) and intake. */
export interface SourceAndIntake<R extends { sha: string } = Revision> {
  lookup(sha: string): Promise<R | undefined>;
  fetch(reason: string): Promise<unknown>;
  deliver(revision: R): Promise<unknown>;
  /** Whether `sha` is `ancestor` or descends from it in this process's own clone; throws when it cannot tell. */
  descends(sha: string, ancestor: string): Promise<boolean>;
  /** The revision intake accepted last (its state directory), if any. */
  lastGood(): string | undefined;
  /** The branch's head as this process's source last found it. */
  head(): string | undefined;
  /** An operator allowed `sha` to leave the revision in force behind (`groundcrew source allow-rewind`). */
  rewindAllowed(sha: string): boolean;
  /** source.verify is on. */
  readonly verify: boolean;
  /** A head refused before intake (it does not descend from `from`, source.verify): recorded as intake records it. */
  refuse(revision: R, from: string): void;
}

/** This member as /metrics shows it (cluster mode). */
export interface MemberProbe {
  member: string;
  leader: boolean;
  ownedNodes: number;
  leaseAgeSeconds: number;
  waiting: boolean;
  /** Values read from etcd that did not parse, by kind (each change of a key's value counted once). */
  rejectedValues: Record<string, number>;
}

/** `R`: what the source hands on (a Revision; cluster/ knows it only by its sha). */
export interface Coordination<R extends { sha: string } = Revision> {
  /** Which nodes this process drives, and the state of those driven elsewhere. */
  readonly scope: NodeScope;
  /** The disruption budget's slots beyond this process. */
  readonly slots: SharedSlots;
  /** The failure budget's record beyond this process. */
  readonly failures: SharedFailures;
  /** Where node snapshots live. */
  readonly snapshots: NodeSnapshots;
  readonly fence: Fence;
  /** Where the server reads the history and reports of a node another process keeps (none: every node is here). */
  readonly detail?: NodeDetailSource;
  /** This member for /metrics (none: a single process). */
  readonly probe?: () => MemberProbe;
  /** SSH host key pins: the pin file, or a store seeded from it. */
  pins(file: HostKeyStore): PinStore;
  /** The reconciler listens (once, as it is built). */
  listen(listener: CoordinationListener): void;
  /** The source and intake, once the daemon has built them. */
  flow(flow: SourceAndIntake<R>): void;
  /** A head the source found: delivered to intake now, or once it is the revision in force. */
  offer(revision: R): Promise<void>;
  /** The nodes of the revision the reconciler now applies. */
  applying(nodes: readonly string[]): void;
  /** A webhook reached this process: every other process fetches too. */
  announce(reason: string): void;
  /** Why this process may not be ready (fenced, waiting for the revision in force), or undefined. */
  notReady(): string | undefined;
  start(url: string): Promise<void>;
  /** Everything saved so far written; the cluster left. */
  stop(): Promise<void>;
}
