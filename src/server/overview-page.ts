// The status page, rendered on the server: the rows are in the HTML (JavaScript off and curl see them),
// one page of them at a time, with counts by state (each a filter), filters, search, sort and paging kept
// in the URL. The script (page-script.ts) re-reads the live regions from /fragments/overview on events.

import { groupOfState, type NodeState, SUMMARY_ORDER } from '../node-state.js';
import type { IntakeVerdict, NodeStatus } from '../reconciler/status-store.js';
import { ago, esc, groupOf, shell, short, topBar } from './html.js';
import { countByState, type NodePage, type NodeQuery, queryString, reasonOf, type SortKey } from './node-query.js';

export const PAGE_SIZE = 100;

export interface OverviewInput {
  all: readonly NodeStatus[];
  page: NodePage;
  query: NodeQuery;
  revisions: readonly IntakeVerdict[];
  ready: { ready: true } | { ready: false; reason: string };
  now?: number;
}

const COLUMNS: [SortKey, string][] = [
  ['name', 'node'],
  ['os', 'os'],
  ['roles', 'roles'],
  ['state', 'state'],
  ['phase', 'phase'],
  ['version', 'contrail desired → observed'],
  ['revision', 'revision applied / desired'],
  ['since', 'in state'],
  ['reason', 'reason'],
];

export function nodeRow(n: NodeStatus, now = Date.now()): string {
  const group = groupOf(n);
  const reason = reasonOf(n);
  const revisionLink = (sha: string | undefined) => (sha ? `<a href="/revisions/${esc(sha)}">${esc(short(sha))}</a>` : '—');
  return (
    `<tr data-node="${esc(n.name)}" data-state="${esc(n.state)}"${group === 'stuck' ? ' class="stuck"' : ''}>` +
    `<td><a href="/nodes/${encodeURIComponent(n.name)}">${esc(n.name)}</a></td>` +
    `<td>${esc(n.os)}</td><td>${esc(n.roles.join(', '))}</td>` +
    `<td class="state"><span class="badge ${group}">${esc(n.state)}</span></td>` +
    `<td class="phase">${esc(n.phase ?? n.reboot ?? '')}</td>` +
    `<td>${esc(n.desiredVersions.contrail ?? '—')} → ${esc(n.observedVersions.contrail ?? '—')}</td>` +
    `<td>${revisionLink(n.lastAppliedRevision)} / ${revisionLink(n.desiredRevision)}</td>` +
    `<td class="since" data-since="${esc(n.since)}">${ago(n.since, now)}</td>` +
    `<td class="reason${n.waiting && !n.lastError ? ' waiting' : ''}"><div class="clamp">${esc(reason)}</div></td></tr>`
  );
}

function summary(all: readonly NodeStatus[], query: NodeQuery): string {
  const counts = countByState(all);
  const states = Object.keys(counts).sort((a, b) => {
    const ia = SUMMARY_ORDER.indexOf(a as NodeState);
    const ib = SUMMARY_ORDER.indexOf(b as NodeState);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  const active = query.state?.join(',');
  const allLink = `<a data-nav href="/${queryString(query, { state: undefined, cursor: undefined })}" class="count${active ? '' : ' on'}" data-count="all"><b>${all.length}</b> all</a>`;
  return (
    allLink +
    states
      .map(
        (s) =>
          `<a data-nav href="/${queryString(query, { state: s, cursor: undefined })}" class="count ${groupOfState(s)}-count${active === s ? ' on' : ''}" data-count="${esc(s)}"><b>${counts[s]}</b> ${esc(s)}</a>`,
      )
      .join('')
  );
}

function banners(revisions: readonly IntakeVerdict[], ready: OverviewInput['ready']): string {
  const current = revisions.find((r) => r.accepted);
  const newest = revisions[0];
  const notReady = ready.ready ? '' : `<div class="rejected" id="not-ready"><b>Not ready:</b> ${esc(ready.reason)}</div>`;
  const rejected =
    newest && !newest.accepted
      ? `<div class="rejected"><b>Revision <a href="/revisions/${esc(newest.sha)}">${esc(short(newest.sha))}</a> was rejected</b>; nodes stay on ${esc(short(current?.sha))}.<pre>${esc((newest.errors ?? []).join('\n'))}</pre></div>`
      : '';
  return notReady + rejected;
}

function revisionLine(revisions: readonly IntakeVerdict[]): string {
  const current = revisions.find((r) => r.accepted);
  if (!current) return 'no good revision yet';
  const signer = current.signature ? ` <span class="signer">${esc(current.signature.reason)}</span>` : '';
  return `revision <a href="/revisions/${esc(current.sha)}"><code>${esc(short(current.sha))}</code></a> ${esc(current.subject ?? '')}${signer}`;
}

function chips(query: NodeQuery): string {
  const set: [keyof NodeQuery, string | undefined][] = [
    ['state', query.state?.join(',')],
    ['os', query.os],
    ['role', query.role],
    ['label', query.label],
    ['revision', query.revision],
    ['mode', query.mode],
    ['q', query.q],
  ];
  const on = set.filter(([, v]) => v !== undefined);
  if (on.length === 0) return '';
  return `${on
    .map(
      ([k, v]) =>
        `<a data-nav class="chip" href="/${queryString(query, { [k]: undefined, cursor: undefined })}">${esc(k)}: ${esc(v)} ✕</a>`,
    )
    .join('')}<a data-nav class="chip clear" href="/">clear all</a>`;
}

function header(query: NodeQuery): string {
  return COLUMNS.map(([key, label]) => {
    const on = query.sort === key;
    const next = on && !query.desc ? `-${key}` : key;
    const arrow = on ? (query.desc ? ' ▼' : ' ▲') : '';
    return `<th><a data-nav href="/${queryString(query, { sort: next === 'name' ? undefined : next, cursor: undefined })}">${esc(label)}${arrow}</a></th>`;
  }).join('');
}

function pager(page: NodePage, query: NodeQuery): string {
  const shown = page.nodes.length;
  const first = query.cursor ? `<a data-nav href="/${queryString(query, { cursor: undefined })}">⇤ first page</a>` : '';
  const next = page.next
    ? `<a data-nav rel="next" href="/${queryString(query, { cursor: page.next })}">next ${query.limit ?? PAGE_SIZE} →</a>`
    : '';
  return `<span id="shown" data-shown="${shown}" data-total="${page.total}">${shown} of ${page.total} matching node${page.total === 1 ? '' : 's'}</span>${first}${next}`;
}

function options(values: Iterable<string>, selected: string | undefined, all: string): string {
  return [
    `<option value="">${esc(all)}</option>`,
    ...[...new Set(values)].sort().map((v) => `<option${v === selected ? ' selected' : ''}>${esc(v)}</option>`),
  ].join('');
}

function filters(all: readonly NodeStatus[], query: NodeQuery): string {
  // A GET form: with the script it filters as you type; without it, Enter or the button submits it to the server,
  // keeping the state filter and sort it was drawn with (hidden fields the script leaves to the URL).
  const keep = [
    ...(query.state ?? []).map((s) => ['state', s]),
    ...(query.sort !== 'name' || query.desc ? [['sort', `${query.desc ? '-' : ''}${query.sort}`]] : []),
  ]
    .map(([k, v]) => `<input type="hidden" name="${k}" value="${esc(v)}">`)
    .join('');
  return `<form id="filters" class="filters" method="get" action="/">${keep}
<input type="search" name="q" id="q" placeholder="search by name" value="${esc(query.q ?? '')}" autocomplete="off">
<select name="os" id="f-os">${options(['linux', 'windows'], query.os, 'any OS')}</select>
<select name="role" id="f-role">${options(
    all.flatMap((n) => n.roles),
    query.role,
    'any role',
  )}</select>
<select name="mode" id="f-mode">${options(
    all.map((n) => n.mode),
    query.mode,
    'any mode',
  )}</select>
<select name="revision" id="f-revision">${options(
    all.map((n) => (n.lastAppliedRevision ? short(n.lastAppliedRevision) : 'none')),
    query.revision,
    'any revision applied',
  )}</select>
<input type="text" name="label" id="f-label" placeholder="label (key=value)" value="${esc(query.label ?? '')}">
<button type="submit">filter</button>
</form>`;
}

/** The parts of the page the script replaces on live events, by element id. */
export function overviewRegions(input: OverviewInput): Record<string, string> {
  const now = input.now ?? Date.now();
  return {
    revision: revisionLine(input.revisions),
    rejected: banners(input.revisions, input.ready),
    summary: summary(input.all, input.query),
    chips: chips(input.query),
    rows: input.page.nodes.map((n) => nodeRow(n, now)).join('\n'),
    pager: pager(input.page, input.query),
  };
}

export function overviewPage(input: OverviewInput): string {
  const r = overviewRegions(input);
  return shell(
    'groundcrew',
    `${topBar('groundcrew', 'nodes')}
<div id="revision" class="revision">${r.revision}</div>
<div id="rejected">${r.rejected}</div>
<nav id="summary" class="summary">${r.summary}</nav>
${filters(input.all, input.query)}
<div id="chips" class="chips">${r.chips}</div>
<table id="nodes">
<thead><tr>${header(input.query)}</tr></thead>
<tbody id="rows">
${r.rows}
</tbody>
</table>
<div id="pager" class="pager">${r.pager}</div>`,
    { view: 'overview', fragment: '/fragments/overview' },
  );
}
