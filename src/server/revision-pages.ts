// The revisions page (every revision the source offered: accepted, or rejected with each error) and one
// revision's page with its rollout. Rendered on the server; the script re-reads the live regions on events.

import type { RolloutView } from '../reconciler/rollout-view.js';
import type { IntakeVerdict } from '../reconciler/status-store.js';
import { esc, shell, short, topBar } from './html.js';

const nodeLink = (name: string) => `<a href="/nodes/${encodeURIComponent(name)}">${esc(name)}</a>`;

function verdict(r: IntakeVerdict): string {
  return r.accepted ? '<span class="badge healthy">accepted</span>' : '<span class="badge stuck">rejected</span>';
}

/** A head that left the revision in force behind: refused under source.verify unless allowed, else applied and flagged. */
function rewound(r: IntakeVerdict): string {
  if (!r.rewind) return '';
  const how = r.rewind.allowed ? 'allowed by an operator' : r.accepted ? 'applied: source.verify is off' : 'refused';
  return `<span class="badge stuck rewind" data-rewind-from="${esc(r.rewind.from)}">rewind from ${esc(short(r.rewind.from))}, ${how}</span>`;
}

/** A rejected revision's errors as kept, and how many more it had. */
function errorText(r: IntakeVerdict): string {
  const kept = r.errors ?? [];
  const more = (r.errorCount ?? kept.length) - kept.length;
  return esc([...kept, ...(more > 0 ? [`… and ${more} more (${r.errorCount} in all)`] : [])].join('\n'));
}

function signer(r: IntakeVerdict): string {
  if (!r.signature) return '';
  return `<span class="${r.signature.ok ? 'signer' : 'reason'}">${esc(r.signature.reason)}</span>`;
}

function progress(v: RolloutView | undefined): string {
  if (!v || v.nodes === 0) return '<span class="muted">no node changed</span>';
  const state = v.halted
    ? '<span class="badge stuck">halted</span>'
    : v.finished
      ? '<span class="badge healthy">done</span>'
      : '<span class="badge busy">rolling</span>';
  return `${state} ${v.applied.length} of ${v.nodes} applied${v.failed.length ? `, ${v.failed.length} failed` : ''}`;
}

export function revisionsRegions(revisions: readonly IntakeVerdict[], rollout: (sha: string) => RolloutView): Record<string, string> {
  const rows = revisions
    .map(
      (r) =>
        `<tr data-sha="${esc(r.sha)}" data-accepted="${r.accepted}"><td><a href="/revisions/${esc(r.sha)}"><code>${esc(short(r.sha))}</code></a></td>` +
        `<td>${esc(r.subject ?? '')}</td><td>${esc(r.author ?? '')}</td><td>${esc(r.committedAt ?? r.at)}</td><td>${verdict(r)} ${rewound(r)} ${signer(r)}</td>` +
        `<td>${r.accepted ? progress(rollout(r.sha)) : `<pre class="errors">${errorText(r)}</pre>`}</td></tr>`,
    )
    .join('\n');
  return { rows: rows || '<tr><td colspan="6" class="muted">no revision yet</td></tr>' };
}

export function revisionsPage(revisions: readonly IntakeVerdict[], rollout: (sha: string) => RolloutView): string {
  const r = revisionsRegions(revisions, rollout);
  return shell(
    'revisions: groundcrew',
    `${topBar('revisions', 'revisions')}
<p class="muted">Newest first: every revision the source offered. A rejected one changed nothing; nodes stayed on the last good one.</p>
<table id="revisions"><thead><tr><th>commit</th><th>subject</th><th>author</th><th>time</th><th>verdict</th><th>rollout or errors</th></tr></thead>
<tbody id="rows">
${r.rows}
</tbody></table>`,
    { view: 'revisions', fragment: '/fragments/revisions' },
  );
}

function list(title: string, cls: string, items: string[]): string {
  if (items.length === 0) return '';
  return `<section class="bucket ${cls}" data-bucket="${cls}"><h3>${esc(title)} (${items.length})</h3><ul>${items.map((i) => `<li>${i}</li>`).join('')}</ul></section>`;
}

export function rolloutRegions(revision: IntakeVerdict | undefined, v: RolloutView): Record<string, string> {
  const head = revision
    ? `<p><code>${esc(revision.sha)}</code> ${esc(revision.subject ?? '')}</p><p class="muted">${esc(revision.author ? `by ${revision.author}, ` : '')}${esc(revision.committedAt ?? '')} offered ${esc(revision.at)} ${rewound(revision)} ${signer(revision)}</p>`
    : `<p><code>${esc(v.sha)}</code> <span class="muted">(not among the recent revisions)</span></p>`;
  if (revision && !revision.accepted)
    return {
      head,
      rollout: `<div class="rejected"><b>Rejected</b>: nothing rolled out.<pre>${errorText(revision)}</pre></div>`,
    };
  const halt = v.halted
    ? `<div class="problem" id="halt"><b>Rollout halted.</b> ${esc(v.haltReason ?? '')}<p><b>What to do:</b> fix the failed nodes' pins (or revert them) in a new commit, or fix their hosts and run <code>groundcrew reconcile NODE</code>: once each failed node converges, the held nodes go on. Or release the halt as it stands: <code>groundcrew rollout resume ${esc(v.sha.slice(0, 12))}</code>.</p></div>`
    : '';
  const resumed = v.resumed
    ? `<p id="resumed">Halt released by an operator (<code>rollout resume</code>) at ${esc(v.resumed.at)}: ${esc(v.resumed.released.join(', '))} no longer counted against the failure budget.</p>`
    : '';
  return {
    head,
    rollout: `${halt}${resumed}<p id="rollout-summary" data-nodes="${v.nodes}" data-applied="${v.applied.length}" data-failed="${v.failed.length}" data-halted="${v.halted}">${progress(v)}</p>
<progress class="bar${v.halted ? ' halted' : ''}" max="${Math.max(1, v.nodes)}" value="${v.applied.length}"></progress>
${list(
  'failed',
  'failed',
  v.failed.map(
    (f) => `${nodeLink(f.name)} <span class="badge stuck">${esc(f.state)}</span> <span class="reason">${esc(f.error ?? '')}</span>`,
  ),
)}
${list('held by the halt', 'held', v.held.map(nodeLink))}
${list('waiting on the disruption budget', 'waiting', v.waitingBudget.map(nodeLink))}
${list(
  'in progress',
  'progress',
  v.inProgress.map((n) => `${nodeLink(n.name)} <span class="muted">${esc(n.state)} ${esc(n.phase ?? n.reboot ?? '')}</span>`),
)}
${list(
  'other',
  'other',
  v.other.map((n) => `${nodeLink(n.name)} <span class="muted">${esc(n.state)}</span>`),
)}
${list('applied', 'applied', v.applied.map(nodeLink))}`,
  };
}

export function rolloutPage(revision: IntakeVerdict | undefined, v: RolloutView): string {
  const r = rolloutRegions(revision, v);
  return shell(
    `${short(v.sha)}: groundcrew`,
    `${topBar(`revision ${esc(short(v.sha))}`, 'revisions')}
<div id="head">${r.head}</div>
<h2>rollout</h2>
<div id="rollout">${r.rollout}</div>`,
    { view: 'revision', fragment: `/fragments/revisions/${v.sha}` },
  );
}
