// A node's transition history and run reports as its owner writes them to etcd (`<prefix>detail/<node>`), and
// the check every value read back passes: another member (or whoever can write to etcd) wrote those bytes.
//
// The value: `gc-detail/1:` and a JSON envelope whose history and each report are raw-deflated JSON in base64.
// A finished report goes as the status store keeps it packed (run-reports.ts), never unpacked to be written:
// a write costs the history's and the running report's deflate, not ten reports' inflate and deflate again
// (4.7 ms against 0.6 ms a write for a node with ten big reports, measured with tsx; see the commit). The
// value is kept under DETAIL_MAX_BYTES, well below etcd's 1.5 MiB request limit and FencedWrites' 1 MiB
// batch, so many nodes' details share a transaction: past it, the newest finished report loses the values
// its resources read, then the oldest reports go, then the oldest history. Read back, a value is refused
// unread past etcd's own limit, its parts inflated to DETAIL_MAX_JSON together at most (a deflate bomb stops
// there), parsed, and checked field by field: one that fails is shown as unreadable.

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import type { NodeDetail, PackedDetail, RunReport, TransitionRecord } from '../reconciler/status-store.js';
import { NodeStateSchema } from './etcd-values.js';

const MAGIC = 'gc-detail/1:';
/** The encoded value at most (bytes). */
export const DETAIL_MAX_BYTES = 256 * 1024;
/** The JSON a value may inflate to at most. */
export const DETAIL_MAX_JSON = 8 * 1024 * 1024;
/** etcd's default --max-request-bytes: nothing longer can have been written there. */
const ETCD_MAX_VALUE = 1.5 * 1024 * 1024;

const text = z.string().max(64 * 1024);
const testResult = z.object({
  inDesiredState: z.boolean(),
  differingProperties: z.array(text),
  actual: z.unknown().optional(),
  desired: z.unknown().optional(),
});
const resource = z.object({
  resource: text,
  status: z.enum(['ok', 'changed', 'failed', 'skipped']),
  before: testResult,
  after: testResult.optional(),
  rebootRequested: z.boolean(),
  error: z.object({ code: text, message: text, retryable: z.boolean() }).optional(),
  durationMs: z.number(),
});
const ReportSchema = z.object({
  node: text,
  revision: text,
  corrective: z.boolean(),
  startedAt: text,
  finishedAt: text.optional(),
  result: text.optional(),
  phases: z.array(z.object({ phase: text, resources: z.array(resource), commands: z.number(), durationMs: z.number(), at: text })),
});
const transition = z.object({
  seq: z.number(),
  at: text,
  event: z.enum(['disruption.started', 'disruption.ended', 'snapshot.set-aside']).optional(),
  state: NodeStateSchema,
  phase: text.optional(),
  reboot: text.optional(),
  revision: text.optional(),
  detail: text.optional(),
});
const HistorySchema = z.array(transition).max(1000);

const EnvelopeSchema = z.object({
  node: text,
  /** When the owner wrote it. */
  at: text,
  /** Set when older records were left out to keep the value under DETAIL_MAX_BYTES. */
  trimmed: z.boolean().optional(),
  history: z.string(),
  reports: z.array(z.string()).max(100),
});

/** A node's detail as read from etcd, checked. */
export interface DetailRecord extends NodeDetail {
  node: string;
  at: string;
  trimmed?: boolean;
}

/** A detail read from etcd: what it holds, or why it cannot be shown. */
export type DetailRead = { detail: DetailRecord } | { unreadable: string };

const b64 = (bytes: Buffer) => bytes.toString('base64');
const deflated = (value: unknown) => deflateRawSync(JSON.stringify(value));

function envelope(node: string, at: string, history: TransitionRecord[], reports: Buffer[], trimmed: boolean): string {
  const value = { node, at, ...(trimmed ? { trimmed } : {}), history: b64(deflated(history)), reports: reports.map(b64) };
  return `${MAGIC}${JSON.stringify(value)}`;
}

/** A report without the values its resources read (what run-reports.ts keeps of any but the newest). */
function summarized(r: RunReport): RunReport {
  const kept = (t: { inDesiredState: boolean; differingProperties: string[] }) => ({
    inDesiredState: t.inDesiredState,
    differingProperties: t.differingProperties,
  });
  return {
    ...r,
    phases: r.phases.map((p) => ({
      ...p,
      resources: p.resources.map((x) => ({ ...x, before: kept(x.before), ...(x.after ? { after: kept(x.after) } : {}) })),
    })),
  };
}

/** The node's detail as its owner writes it: under `maxBytes`, the oldest records left out first when it must. */
export function encodeDetail(node: string, detail: PackedDetail, at: string, maxBytes = DETAIL_MAX_BYTES): string {
  let history = detail.history;
  let reports = detail.running ? [...detail.finished, deflated(detail.running)] : detail.finished;
  let out = envelope(node, at, history, reports, false);
  if (out.length <= maxBytes) return out;
  // The newest report is the only one with the values read: without them first.
  const newest = reports.at(-1);
  if (newest) reports = [...reports.slice(0, -1), deflated(summarized(JSON.parse(inflateRawSync(newest).toString('utf8'))))];
  for (;;) {
    out = envelope(node, at, history, reports, true);
    if (out.length <= maxBytes) return out;
    if (reports.length > 1) reports = reports.slice(1);
    else if (history.length > 1) history = history.slice(Math.ceil(history.length / 2));
    else if (reports.length > 0) reports = [];
    else return envelope(node, at, [], [], true);
  }
}

/** One part of a value: base64 of raw deflate of JSON, inflated to `budget.left` bytes at most. */
function part<T>(encoded: string, schema: z.ZodType<T>, budget: { left: number }, what: string): T {
  let json: Buffer;
  try {
    json = inflateRawSync(Buffer.from(encoded, 'base64'), { maxOutputLength: Math.max(1, budget.left) });
  } catch (err) {
    throw new Error(`${what}: does not inflate within ${DETAIL_MAX_JSON} bytes in all (${(err as Error).message})`);
  }
  budget.left -= json.length;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.toString('utf8'));
  } catch (err) {
    throw new Error(`${what}: not JSON (${(err as Error).message})`);
  }
  const checked = schema.safeParse(parsed);
  if (!checked.success) {
    const [issue] = checked.error.issues;
    throw new Error(`${[what, ...(issue?.path ?? [])].join('.')}: ${issue?.message ?? 'invalid'}`);
  }
  return checked.data;
}

/** A value from etcd, checked: never throws, whatever the bytes. */
export function decodeDetail(node: string, value: string): DetailRead {
  if (value.length > ETCD_MAX_VALUE) return { unreadable: `longer than etcd allows (${value.length} bytes)` };
  if (!value.startsWith(MAGIC)) return { unreadable: `not a groundcrew detail record (expected "${MAGIC}...")` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.slice(MAGIC.length));
  } catch (err) {
    return { unreadable: `not JSON (${(err as Error).message})` };
  }
  const checked = EnvelopeSchema.safeParse(parsed);
  if (!checked.success) {
    const [issue] = checked.error.issues;
    return { unreadable: `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}` };
  }
  const e = checked.data;
  if (e.node !== node) return { unreadable: `written for node "${e.node}", read as "${node}"` };
  const budget = { left: DETAIL_MAX_JSON };
  try {
    const history = part(e.history, HistorySchema, budget, 'history');
    const reports = e.reports.map((r, i) => part(r, ReportSchema, budget, `reports.${i}`));
    return { detail: { node, at: e.at, ...(e.trimmed ? { trimmed: true } : {}), history, reports } };
  } catch (err) {
    return { unreadable: (err as Error).message };
  }
}
