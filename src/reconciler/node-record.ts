// A node the reconciler knows, with one owner: this file. Its desired part (desired-node.ts) is derived once per
// revision and replaced whole; its observed part (its machine, the runtime built for that machine, the versions
// its phases last saw) is written only through the functions here. Every field is read-only to every other file,
// so the compiler finds any other writer.

import type { Logger } from 'pino';
import type { Actor, SnapshotFrom } from 'xstate';
import type { NodeEvent, nodeMachine } from '../state-machines/node-machine.js';
import type { DesiredNode } from './desired-node.js';
import type { NodeRuntime } from './node-actors.js';

export type NodeActor = Actor<typeof nodeMachine>;
export type NodeSnapshot = SnapshotFrom<typeof nodeMachine>;

/** What the reconciler asks of a node's machine: its live actor, or a settled node's snapshot (dormant-node.ts). */
export interface NodeHandle {
  getSnapshot(): NodeSnapshot;
  getPersistedSnapshot(): unknown;
  send(event: NodeEvent): void;
  stop(): void;
}

/** How a node is reached: its executor (durable, kept while the node is known) and its boot-id polling. */
export type NodeAccess = Pick<NodeRuntime, 'exec' | 'poll'>;

export interface NodeRecord {
  readonly name: string;
  /** What the node is asked to be, replaced as a unit when that changes. */
  readonly desired: DesiredNode;
  readonly access: NodeAccess;
  readonly log: Logger;
  /** Its machine: the live actor, or the snapshot of a rested one (dormant-node.ts). */
  readonly actor: NodeHandle;
  /** What its machine runs on, built when an actor first asks, dropped when the node rests (node-runtime.ts). */
  readonly runtime: NodeRuntime | undefined;
  /** The versions its phases last observed on the node (saved with its snapshot). */
  readonly observed: Record<string, string> | undefined;
}

type Owned = { -readonly [K in keyof NodeRecord]: NodeRecord[K] };

/** A record before its machine is launched: any use of the machine says so by name. */
function unlaunched(name: string): NodeHandle {
  const refuse = (): never => {
    throw new Error(`node ${name}: its machine is not launched yet`);
  };
  return { getSnapshot: refuse, getPersistedSnapshot: refuse, send: refuse, stop: () => undefined };
}

/** A new record: its machine comes from `launched` (node-launch.ts) before anything reads it. */
export function newRecord(fields: {
  name: string;
  desired: DesiredNode;
  access: NodeAccess;
  log: Logger;
  observed?: Record<string, string>;
}): NodeRecord {
  return { ...fields, actor: unlaunched(fields.name), runtime: undefined, observed: fields.observed };
}

/** The node is asked something else: its whole desired part replaced. */
export function desire(record: NodeRecord, desired: DesiredNode): void {
  (record as Owned).desired = desired;
}

/** Its machine is now `actor` (launched, rested, or woken). */
export function launched(record: NodeRecord, actor: NodeHandle): void {
  (record as Owned).actor = actor;
}

/** Its machine's runtime, built by `build` the first time an actor asks after a launch or a rest. */
export function runtimeOf(record: NodeRecord, build: () => NodeRuntime): NodeRuntime {
  (record as Owned).runtime ??= build();
  return record.runtime as NodeRuntime;
}

/** The node rests: its runtime goes, and is built again when an actor asks. */
export function dropRuntime(record: NodeRecord): void {
  (record as Owned).runtime = undefined;
}

/** What a phase observed of the node's versions. */
export function noteVersions(record: NodeRecord, versions: Record<string, string>): void {
  (record as Owned).observed = versions;
}
