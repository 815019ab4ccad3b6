// Every value cluster mode reads from etcd, as a shape: anyone who can write to etcd wrote those bytes, so each
// is parsed as strictly as a file of the repo (zod, unknown fields refused, strings bounded, names as the
// inventory and the daemon config spell them). A value that does not parse is skipped, never served: one log
// line per change of the key's value, and a count by kind (`groundcrew_etcd_rejected_values_total{kind}`).

import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { MACHINE_STATES, REBOOT_STEPS } from '../node-state.js';
import type { NodeStatus } from '../reconciler/status-store.js';

/** A node's name, as instances.yaml allows it (inventory/instances-file.ts). */
export const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
/** A member's name, as the daemon config allows it (cli/daemon-config.ts, cluster.member). */
export const MEMBER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** A full Git object name (SHA-1 or SHA-256): never an expression git would resolve (`main~1`). */
export const OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** An etcd lease id as etcd3 spells it: a decimal int64, never 0 (no lease). */
const LEASE_ID = /^[1-9][0-9]{0,19}$/;

const text = (max = 4096) => z.string().max(max);
const member = z.string().regex(MEMBER_NAME);
const lease = z.string().regex(LEASE_ID);
const time = text(64);

/** What a value is, for the log and the metric's `kind` label. */
export type ValueKind = 'status' | 'detail' | 'owner' | 'member' | 'revision' | 'slot' | 'failure' | 'leader' | 'fetch-request';

const Condition = z.strictObject({
  type: z.enum(['Ready', 'Reconciling', 'Stalled', 'SnapshotSetAside']),
  status: z.enum(['True', 'False']),
  reason: text(256),
  message: text(),
});

/** A node's state as etcd may hold it: the one union (node-state.ts), checked; node-detail.ts's records use it too. */
export const NodeStateSchema = z.enum([...MACHINE_STATES, 'orphaned']);

const StatusSchema = z.strictObject({
  name: z.string().regex(NODE_NAME),
  address: text(256),
  os: z.enum(['linux', 'windows']),
  roles: z.array(text(64)).max(64),
  labels: z.record(text(256), text(256)).optional(),
  state: NodeStateSchema,
  phase: text(64).optional(),
  reboot: z.enum(REBOOT_STEPS).optional(),
  phases: z.array(text(64)).max(64),
  mode: text(32),
  desiredRevision: z.string().regex(OBJECT_NAME).optional(),
  lastAttemptedRevision: z.string().regex(OBJECT_NAME).optional(),
  lastAppliedRevision: z.string().regex(OBJECT_NAME).optional(),
  desiredVersions: z.record(text(64), text(128)),
  observedVersions: z.record(text(64), text(128)),
  conditions: z.array(Condition).max(8),
  lastError: z.strictObject({ code: text(64), message: text() }).optional(),
  waiting: text().optional(),
  rebootCount: z.number().int().nonnegative(),
  snapshotSetAside: z.strictObject({ file: text(1024), reason: text(), at: time }).optional(),
  drift: z.boolean(),
  since: time,
  updatedAt: time,
});
// The shape and the reconciler's type agree: a field added to one and not the other fails the build here.
const statusAgrees: z.infer<typeof StatusSchema> extends NodeStatus ? true : never = true;
void statusAgrees;

/** `<prefix>owners/<node>`: who drives the node, under that member's lease. */
export const OwnerSchema = z.strictObject({ member, lease });
export type OwnerRecord = z.infer<typeof OwnerSchema>;

/** `<prefix>members/<name>`: a member's registration, under its lease. */
export const MemberSchema = z.strictObject({ name: member, url: text(512).optional(), since: time });

/** `<prefix>revision`: the sha the leader put in force, and the lease it led under. */
export const InForceSchema = z.strictObject({ sha: z.string().regex(OBJECT_NAME), leader: member, lease, at: time });
export type InForceRecord = z.infer<typeof InForceSchema>;

/** `<prefix>budget/<i>`: a disruption slot, held for a node. */
export const SlotSchema = z.strictObject({ node: z.string().regex(NODE_NAME), member, lease });

/** `<prefix>failures/<revision>/<node>`: a node that failed on a revision. */
export const FailureSchema = z.strictObject({ node: z.string().regex(NODE_NAME), revision: z.string().regex(OBJECT_NAME), at: time });

/** `<prefix>fetch-now`: a member asks the others to fetch. */
export const FetchRequestSchema = z.strictObject({ member, reason: text(1024), at: time });

/** `<prefix>applied/<member>`: what a member applies or waits for. */
export const AppliedSchema = z.strictObject({ sha: z.string().regex(OBJECT_NAME).optional(), waiting: text().optional() });

/** A node status as its owner writes it, checked. */
export function parseStatus(value: string): { ok: true; status: NodeStatus } | { ok: false; reason: string } {
  const read = parseJson(value, StatusSchema);
  return read.ok ? { ok: true, status: read.value } : read;
}

/** The value as `schema`, or why not (the first problem, with its path). Never throws, whatever the bytes. */
export function parseJson<T>(value: string, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  const checked = schema.safeParse(parsed);
  if (checked.success) return { ok: true, value: checked.data };
  const [issue] = checked.error.issues;
  return { ok: false, reason: `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}` };
}

/** How much of a hostile key a log line shows. */
const KEY_SHOWN = 200;

/**
 * The values refused, counted by kind, and said once per change of a key's value (a value read again every pass
 * is not logged again; the key changed, or became good and then bad again, is).
 */
export class RejectedValues {
  readonly #counts = new Map<ValueKind, number>();
  /** Keys whose value is refused now, with a digest of that value. */
  readonly #refused = new Map<string, string>();

  constructor(private readonly log: Logger) {}

  /** Refused values by kind, since the start (each change of a key's value counted once). */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  /** `key`'s `value` is refused as `kind` because of `reason` (the value itself is never logged). */
  reject(kind: ValueKind, key: string, value: string, reason: string): void {
    const digest = createHash('sha256').update(value).digest('base64');
    if (this.#refused.get(key) === digest) return;
    this.#refused.set(key, digest);
    this.#counts.set(kind, (this.#counts.get(kind) ?? 0) + 1);
    const shown = key.length > KEY_SHOWN ? `${key.slice(0, KEY_SHOWN)}…` : key;
    this.log.warn({ kind, key: shown, reason }, `cluster: a ${kind} value in etcd refused (skipped, never served)`);
  }

  /** `key` holds a good value now, or none: a bad one later is a change, said again. */
  clear(key: string): void {
    this.#refused.delete(key);
  }
}
