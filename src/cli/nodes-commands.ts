// `groundcrew nodes` (the nodes a filter selects, as /api/nodes takes it, a page at a time or all) and
// `groundcrew explain NODE` (its state, why, since when, the last error and what to do, and the commit
// that asked for the work it is doing).

import type { Condition, IntakeVerdict, NodeStatus, TransitionRecord } from '../reconciler/status-store.js';
import { renderTable, short, since } from './client-commands.js';
import { type AnswerHeaders, type ClientOptions, call, callWithHeaders } from './daemon-client.js';
import { inert, inertJson } from './inert-text.js';
import type { Output } from './inventory-commands.js';

/** The filters `nodes` passes on to /api/nodes, by their query names. */
export const NODE_FILTERS = ['state', 'os', 'role', 'label', 'revision', 'mode', 'q', 'sort', 'limit', 'cursor'] as const;
export type NodeFilters = Partial<Record<(typeof NODE_FILTERS)[number], string>>;

export interface NodesOptions extends ClientOptions, NodeFilters {
  json?: boolean;
  /** Every page, not the first only. */
  all?: boolean;
  /** Names only, one a line (what shell completion reads). */
  names?: boolean;
}

export async function nodesCommand(options: NodesOptions, io: Output): Promise<number> {
  const params = new URLSearchParams();
  for (const key of NODE_FILTERS) {
    const value = options[key];
    if (value !== undefined) params.set(key, value);
  }
  if (!params.has('limit') && !options.all && !options.names) params.set('limit', '100');
  const nodes: NodeStatus[] = [];
  let total = 0;
  let path: string | undefined = `/api/nodes?${params.toString()}`;
  let next: string | undefined;
  while (path) {
    const page: { body: NodeStatus[]; headers: AnswerHeaders } = await callWithHeaders<NodeStatus[]>(options, path);
    nodes.push(...page.body);
    total = Number(page.headers.get('x-total-count') ?? page.body.length);
    next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
    path = options.all || options.names ? next : undefined;
  }
  if (options.names) {
    for (const n of nodes) io.out(inert(n.name));
    return 0;
  }
  if (options.json) {
    io.out(inertJson(JSON.stringify(nodes, null, 2)));
    return 0;
  }
  io.out(renderTable(nodes));
  const cursor = next ? new URL(next, 'http://x').searchParams.get('cursor') : undefined;
  io.out(
    `\n${nodes.length} of ${total} matching node${total === 1 ? '' : 's'}${cursor ? `; next page: --cursor ${cursor} (or --all)` : ''}`,
  );
  return 0;
}

type NodeDetail = NodeStatus & { history: TransitionRecord[]; help: { meaning: string; todo: string } | null };

const condition = (c: Condition) => `${c.type}=${c.status} (${inert(c.reason)})${c.message ? `: ${inert(c.message.split('\n')[0])}` : ''}`;

/** A node explained in words, for a person at a terminal. */
export function renderExplain(n: NodeDetail, revisions: IntakeVerdict[], now = Date.now()): string {
  const lines: string[] = [];
  const subject = (sha?: string) => {
    const r = sha ? revisions.find((x) => x.sha === sha) : undefined;
    return r?.subject ? ` "${inert(r.subject)}"` : '';
  };
  lines.push(
    `${inert(n.name)} (${inert(n.os)}; ${n.roles.map(inert).join(', ')}): ${inert(n.state)}${n.phase ? ` in ${inert(n.phase)}` : ''}${n.reboot ? ` at ${inert(n.reboot)}` : ''}`,
  );
  lines.push(`  since ${inert(n.since)} (${since(n.since, now)} ago)`);
  if (n.lastError) {
    const [first, ...rest] = n.lastError.message.split('\n');
    lines.push(`  why: ${inert(n.lastError.code)}: ${inert(first)}`);
    for (const line of rest) lines.push(`       ${inert(line)}`);
    if (n.help) {
      lines.push(`  what it means: ${inert(n.help.meaning)}`);
      lines.push(`  what to do: ${inert(n.help.todo)}`);
    }
  } else if (n.waiting) lines.push(`  why: ${inert(n.waiting)}`);
  else if (n.drift) lines.push('  why: it differs from its revision; monitor mode reports drift and changes nothing');
  else if (n.state === 'verified') lines.push('  why: in its desired state at its desired revision');
  lines.push(`  work asked by: ${short(n.desiredRevision)}${subject(n.desiredRevision)} (its desired revision)`);
  lines.push(`  last applied:  ${short(n.lastAppliedRevision)}${subject(n.lastAppliedRevision)}`);
  if (n.lastAttemptedRevision && n.lastAttemptedRevision !== n.lastAppliedRevision)
    lines.push(`  last attempted: ${short(n.lastAttemptedRevision)}${subject(n.lastAttemptedRevision)}`);
  const versions = Object.keys({ ...n.desiredVersions, ...n.observedVersions });
  if (versions.length > 0)
    lines.push(
      `  versions: ${versions.map((k) => `${inert(k)} ${inert(n.desiredVersions[k] ?? '-')}→${inert(n.observedVersions[k] ?? '-')}`).join(', ')}`,
    );
  lines.push(`  mode: ${inert(n.mode)}, reboots this revision: ${n.rebootCount}`);
  lines.push(`  conditions: ${n.conditions.map(condition).join('; ')}`);
  const recent = n.history.slice(-5);
  if (recent.length > 0) {
    lines.push('  recent:');
    for (const t of recent)
      lines.push(
        `    ${inert(t.at)}  ${inert(t.event ?? t.state)}${(t.phase ?? t.reboot) ? ` ${inert(t.phase ?? t.reboot)}` : ''}${t.detail ? `  ${inert(t.detail.split('\n')[0])}` : ''}`,
      );
  }
  return lines.join('\n');
}

export async function explainCommand(node: string, options: ClientOptions & { json?: boolean }, io: Output): Promise<number> {
  const [n, revisions] = await Promise.all([
    call<NodeDetail>(options, `/api/nodes/${encodeURIComponent(node)}`),
    call<IntakeVerdict[]>(options, '/api/revisions'),
  ]);
  io.out(options.json ? inertJson(JSON.stringify(n, null, 2)) : renderExplain(n, revisions));
  return 0;
}
