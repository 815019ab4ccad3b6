// A node's transition history and run reports as its owner writes them to etcd (`<prefix>detail/<node>`), and
// the check every value read back passes: another member (or whoever can write to etcd) wrote those bytes.
//
// The value: `gc-detail/1:` and the JSON deflated, in base64 (a node's 200 transitions and ten reports are
// about 60 KB of JSON, a few KB deflated). It is kept under DETAIL_MAX_BYTES, well below etcd's 1.5 MiB
// request limit and FencedWrites' 1 MiB batch, so many nodes' details share a transaction: past it, the
// newest report loses the values its resources read, then the oldest reports go, then the oldest history.
// Read back, a value is refused unread past etcd's own limit, inflated no further than DETAIL_MAX_JSON
// (a deflate bomb stops there), parsed, and checked field by field: one that fails is shown as unreadable.

import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import type { NodeDetail, RunReport } from '../reconciler/status-store.js';

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
const report = z.object({
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
  state: text,
  phase: text.optional(),
  revision: text.optional(),
  detail: text.optional(),
});
const DetailSchema = z.object({
  node: text,
  /** When the owner wrote it. */
  at: text,
  /** Set when older records were left out to keep the value under DETAIL_MAX_BYTES. */
  trimmed: z.boolean().optional(),
  history: z.array(transition).max(1000),
  reports: z.array(report).max(100),
});

export type DetailRecord = z.infer<typeof DetailSchema>;

/** A detail read from etcd: what it holds, or why it cannot be shown. */
export type DetailRead = { detail: DetailRecord } | { unreadable: string };

function encoded(value: DetailRecord): string {
  return `${MAGIC}${deflateRawSync(JSON.stringify(value)).toString('base64')}`;
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
export function encodeDetail(node: string, detail: NodeDetail, at: string, maxBytes = DETAIL_MAX_BYTES): string {
  let value: DetailRecord = { node, at, history: detail.history, reports: detail.reports };
  let out = encoded(value);
  if (out.length <= maxBytes) return out;
  value = { ...value, trimmed: true, reports: value.reports.map(summarized) };
  for (;;) {
    out = encoded(value);
    if (out.length <= maxBytes) return out;
    if (value.reports.length > 1) value = { ...value, reports: value.reports.slice(1) };
    else if (value.history.length > 1) value = { ...value, history: value.history.slice(Math.ceil(value.history.length / 2)) };
    else if (value.reports.length > 0) value = { ...value, reports: [] };
    else return encoded({ ...value, history: [] });
  }
}

/** A value from etcd, checked: never throws, whatever the bytes. */
export function decodeDetail(node: string, value: string): DetailRead {
  if (value.length > ETCD_MAX_VALUE) return { unreadable: `longer than etcd allows (${value.length} bytes)` };
  if (!value.startsWith(MAGIC)) return { unreadable: `not a groundcrew detail record (expected "${MAGIC}...")` };
  let json: string;
  try {
    json = inflateRawSync(Buffer.from(value.slice(MAGIC.length), 'base64'), { maxOutputLength: DETAIL_MAX_JSON }).toString('utf8');
  } catch (err) {
    return { unreadable: `does not inflate within ${DETAIL_MAX_JSON} bytes (${(err as Error).message})` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    return { unreadable: `not JSON (${(err as Error).message})` };
  }
  const checked = DetailSchema.safeParse(parsed);
  if (!checked.success) {
    const [issue] = checked.error.issues;
    return { unreadable: `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}` };
  }
  if (checked.data.node !== node) return { unreadable: `written for node "${checked.data.node}", read as "${node}"` };
  return { detail: checked.data };
}
