// The nodes an operator asks for: filters (state, OS, role, label, revision, mode, a name search), a sort
// by any column and keyset paging. One reading of the query serves /api/nodes, the status page and the CLI.

import type { NodeStatus } from '../reconciler/status-store.js';

export const SORT_KEYS = ['name', 'os', 'roles', 'state', 'phase', 'version', 'revision', 'since', 'reason'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface NodeQuery {
  state?: string[];
  os?: string;
  role?: string;
  /** `key=value`, or `key` for any value. */
  label?: string;
  /** A prefix of the revision applied (or `none`: never applied). */
  revision?: string;
  mode?: string;
  /** A substring of the name, case-insensitive. */
  q?: string;
  sort: SortKey;
  desc: boolean;
  /** Rows in one page; undefined: all that match. */
  limit?: number;
  cursor?: string;
}

export interface NodePage {
  nodes: NodeStatus[];
  /** Nodes matching the filters, on every page. */
  total: number;
  /** Where the next page starts, when there is one. */
  next?: string;
}

export const MAX_LIMIT = 1000;

type Raw = Record<string, string | string[] | undefined>;

const one = (v: string | string[] | undefined): string | undefined => {
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
};

/** The query from URL parameters; a `-` before the sort key sorts descending. Unknown keys are ignored. */
export function parseNodeQuery(raw: Raw, defaultLimit?: number): { query: NodeQuery } | { error: string } {
  const sortText = one(raw.sort) ?? 'name';
  const desc = sortText.startsWith('-');
  const sort = sortText.replace(/^-/, '');
  if (!(SORT_KEYS as readonly string[]).includes(sort))
    return { error: `sort must be one of ${SORT_KEYS.join(', ')} (a leading - sorts descending)` };
  const limitText = one(raw.limit);
  const limit = limitText === undefined ? defaultLimit : Number(limitText);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT))
    return { error: `limit must be a whole number from 1 to ${MAX_LIMIT}` };
  const states = (Array.isArray(raw.state) ? raw.state : [raw.state ?? ''])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const query: NodeQuery = { sort: sort as SortKey, desc };
  if (states.length > 0) query.state = states;
  for (const key of ['os', 'role', 'label', 'revision', 'mode', 'q', 'cursor'] as const) {
    const v = one(raw[key]);
    if (v !== undefined) query[key] = v;
  }
  if (limit !== undefined) query.limit = limit;
  return { query };
}

/** Whether any filter is set (paging and sort aside). */
export function filtered(query: NodeQuery): boolean {
  return Boolean(query.state || query.os || query.role || query.label || query.revision || query.mode || query.q);
}

/** The reason a row shows: the last error of a failing node, else why it waits, else its drift. */
export function reasonOf(n: NodeStatus): string {
  if (n.lastError && n.state !== 'verified') return `${n.lastError.code}: ${n.lastError.message}`;
  if (n.waiting) return n.waiting;
  if (n.drift) return 'drift: the node differs from its revision (monitor mode)';
  return '';
}

function sortValue(n: NodeStatus, key: SortKey): string {
  switch (key) {
    case 'name':
      return n.name;
    case 'roles':
      return n.roles.join(',');
    case 'version':
      return n.observedVersions.contrail ?? '';
    case 'revision':
      return n.lastAppliedRevision ?? '';
    case 'since':
      return n.since;
    case 'phase':
      // A rebooting node sorts by its reboot step, which the phase column shows.
      return n.phase ?? n.reboot ?? '';
    case 'reason':
      return reasonOf(n);
    default:
      return n[key] ?? '';
  }
}

function matches(n: NodeStatus, q: NodeQuery): boolean {
  if (q.state && !q.state.includes(n.state)) return false;
  if (q.os && n.os !== q.os) return false;
  if (q.role && !n.roles.includes(q.role)) return false;
  if (q.mode && n.mode !== q.mode) return false;
  if (q.revision) {
    const applied = n.lastAppliedRevision;
    if (q.revision === 'none' ? applied !== undefined : !applied?.startsWith(q.revision)) return false;
  }
  if (q.label) {
    const [key, value] = q.label.split('=', 2) as [string, string | undefined];
    const have = n.labels?.[key];
    if (have === undefined || (value !== undefined && have !== value)) return false;
  }
  if (q.q && !n.name.toLowerCase().includes(q.q.toLowerCase())) return false;
  return true;
}

const encodeCursor = (value: string, name: string) => Buffer.from(JSON.stringify([value, name])).toString('base64url');

function decodeCursor(cursor: string): [string, string] | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && parsed.length === 2 && parsed.every((p) => typeof p === 'string')) return parsed as [string, string];
  } catch {
    // not a cursor this server made
  }
  return undefined;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The nodes a query selects, sorted (name breaks ties), from its cursor on, at most `limit` of them. */
export function queryNodes(all: readonly NodeStatus[], query: NodeQuery): NodePage | { error: string } {
  const sign = query.desc ? -1 : 1;
  const keyed = all.filter((n) => matches(n, query)).map((n) => ({ n, v: sortValue(n, query.sort) }));
  const order = (a: { n: NodeStatus; v: string }, b: { n: NodeStatus; v: string }) =>
    sign * compare(a.v, b.v) || compare(a.n.name, b.n.name);
  keyed.sort(order);
  let start = 0;
  if (query.cursor) {
    const after = decodeCursor(query.cursor);
    if (!after) return { error: 'cursor is not one this daemon gave' };
    const mark = { n: { name: after[1] } as NodeStatus, v: after[0] };
    // Keyset: the first row after the cursor's (value, name), so a page stays put while nodes change state.
    start = keyed.findIndex((k) => order(k, mark) > 0);
    if (start < 0) start = keyed.length;
  }
  const end = query.limit === undefined ? keyed.length : Math.min(keyed.length, start + query.limit);
  const page = keyed.slice(start, end);
  const last = page.at(-1);
  return {
    nodes: page.map((k) => k.n),
    total: keyed.length,
    ...(end < keyed.length && last ? { next: encodeCursor(last.v, last.n.name) } : {}),
  };
}

/** Nodes by state, for the summary (each count a filter). */
export function countByState(all: readonly NodeStatus[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const n of all) counts[n.state] = (counts[n.state] ?? 0) + 1;
  return counts;
}

/** The query as URL parameters, for links that keep the filter (`over` changes some of it). */
export function queryString(query: NodeQuery, over: Partial<Record<keyof NodeQuery, string | undefined>> = {}): string {
  const params = new URLSearchParams();
  const base: Partial<Record<keyof NodeQuery, string | undefined>> = {
    state: query.state?.join(','),
    os: query.os,
    role: query.role,
    label: query.label,
    revision: query.revision,
    mode: query.mode,
    q: query.q,
    sort: query.sort === 'name' && !query.desc ? undefined : `${query.desc ? '-' : ''}${query.sort}`,
    limit: query.limit === undefined ? undefined : String(query.limit),
  };
  const merged = { ...base, ...over };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined && v !== '' && k !== 'desc') params.set(k, v);
  const text = params.toString();
  return text ? `?${text}` : '';
}
