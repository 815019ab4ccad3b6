// The node page, rendered on the server (curl and a browser without JavaScript see it whole): the machine
// drawn with the current state lit, the problem and what to do, the timeline with each entry's revision
// linked, the last run report. The script re-reads its regions from /fragments/nodes/NAME on its events.

import { groupOfState, type NodeState, REBOOT_STEPS } from '../node-state.js';
import type { NodeStatus, RunReport, TransitionRecord } from '../reconciler/status-store.js';
import { esc, groupOf, shell, short, topBar } from './html.js';

export interface NodeView {
  node: NodeStatus;
  history: readonly TransitionRecord[];
  reports: readonly RunReport[];
  help: { meaning: string; todo: string } | null;
  /** Cluster mode: why the node's history and reports, kept by another member, cannot be shown. */
  unreadable?: string;
}

const ARROW = '<span class="arrow">→</span>';

function diagram(n: NodeStatus): string {
  const box = (state: NodeState) => {
    const lit =
      n.state === state ? ` lit${groupOfState(state) === 'stuck' ? ' stuck-state' : state === 'verified' ? ' good-state' : ''}` : '';
    return `<div class="state${lit}" data-state="${state}">${state}</div>`;
  };
  const step = (state: string, phase: string) =>
    `<div class="state${n.state === state && (n.phase ?? n.reboot) === phase ? ' lit' : ''}" data-state="${state}" data-phase="${esc(phase)}">${esc(phase)}</div>`;
  const group = (state: string, steps: readonly string[]) =>
    `<div class="group${n.state === state ? ' lit' : ''}"><span class="label">${state}</span>${steps.map((p) => step(state, p)).join(ARROW)}</div>`;
  return (
    `<div class="row">${box('pending')}${ARROW}${group('converging', n.phases)}${ARROW}${box('verified')}</div>` +
    `<div class="row">${group('rebooting', REBOOT_STEPS)}</div>` +
    `<div class="row">${(['backoff', 'stalled', 'unreachable', 'paused', 'removing', 'removed'] as const).map(box).join('')}</div>`
  );
}

function problem(v: NodeView): string {
  const n = v.node;
  if (n.lastError && n.state !== 'verified') {
    const help = v.help ? `<p>${esc(v.help.meaning)}</p><p><b>What to do:</b> ${esc(v.help.todo)}</p>` : '';
    return `<div class="problem"><code>${esc(n.lastError.code)}</code> ${esc(n.lastError.message)}${help}</div>`;
  }
  if (n.waiting) return `<div class="notice">${esc(n.waiting)}</div>`;
  if (n.drift) return '<div class="notice">Drift: the node differs from its revision; monitor mode reports it and changes nothing.</div>';
  return '';
}

function report(r: RunReport | undefined): string {
  if (!r) return '<p class="muted">no run yet</p>';
  const head = `<p>revision <a href="/revisions/${esc(r.revision)}"><code>${esc(short(r.revision))}</code></a>, ${r.corrective ? 'corrective (drift fixed)' : 'intentional (a commit)'}, started ${esc(r.startedAt)}${r.result ? `, ended ${esc(r.result)}` : ', running'}</p>`;
  const rows = r.phases
    .flatMap((p) =>
      p.resources.map(
        (x) =>
          `<tr><td>${esc(p.phase)}</td><td>${esc(x.resource)}</td><td>${esc(x.status)}</td><td>${esc((x.before?.differingProperties ?? []).join(', '))}</td><td>${Math.round(x.durationMs)} ms</td><td>${esc(x.error ? `${x.error.code}: ${x.error.message}` : '')}</td></tr>`,
      ),
    )
    .join('');
  return `${head}<table><thead><tr><th>phase</th><th>resource</th><th>status</th><th>differed</th><th>took</th><th>error</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function timeline(history: readonly TransitionRecord[]): string {
  return [...history]
    .reverse()
    .map(
      (t) =>
        `<tr><td>${esc(t.at)}</td><td>${esc(t.event ?? t.state)}</td><td>${esc(t.phase ?? t.reboot ?? '')}</td><td>${t.revision ? `<a href="/revisions/${esc(t.revision)}"><code>${esc(short(t.revision))}</code></a>` : ''}</td><td>${esc(t.detail ?? '')}</td></tr>`,
    )
    .join('\n');
}

export function nodeRegions(v: NodeView): Record<string, string> {
  const n = v.node;
  return {
    title: `${esc(n.name)} <span class="badge ${groupOf(n)}" id="state">${esc(n.state)}</span>${(n.phase ?? n.reboot) ? ` <span class="muted">${esc(n.phase ?? n.reboot ?? '')}</span>` : ''}`,
    problem: problem(v),
    diagram: diagram(n),
    'timeline-rows': v.unreadable
      ? `<tr><td colspan="5" class="notice">history unreadable: ${esc(v.unreadable)}</td></tr>`
      : timeline(v.history),
    report: v.unreadable ? `<p class="notice">run reports unreadable: ${esc(v.unreadable)}</p>` : report(v.reports.at(-1)),
  };
}

export function nodePage(v: NodeView): string {
  const r = nodeRegions(v);
  return shell(
    `${v.node.name}: groundcrew`,
    `${topBar(`<span id="title">${r.title}</span>`, 'node')}
<div id="problem">${r.problem}</div>
<h2>machine</h2>
<div id="diagram" class="diagram">${r.diagram}</div>
<h2>timeline</h2>
<table id="timeline"><thead><tr><th>time</th><th>state</th><th>phase</th><th>revision</th><th>detail</th></tr></thead><tbody id="timeline-rows">
${r['timeline-rows']}
</tbody></table>
<h2>last run report</h2>
<div id="report">${r.report}</div>`,
    { view: 'node', node: v.node.name, fragment: `/fragments/nodes/${encodeURIComponent(v.node.name)}` },
  );
}
