// The pages' script, served as /app.js (runs in the browser): renders nodes from the JSON API and follows
// /api/events. Plain JavaScript in a string: no build step, nothing fetched from anywhere but the daemon itself.

export const PAGE_SCRIPT = String.raw`
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const short = (sha) => (sha ? String(sha).slice(0, 12) : '—');
const GROUP = { verified: 'healthy', pending: 'busy', converging: 'busy', rebooting: 'busy', backoff: 'busy', removing: 'busy',
  stalled: 'stuck', unreachable: 'stuck', paused: 'aside', orphaned: 'aside', removed: 'aside' };
const groupOf = (n) => (n.state === 'verified' && n.drift ? 'drift' : GROUP[n.state] || 'busy');
function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
}
function reasonOf(n) {
  if (n.lastError && n.state !== 'verified') return n.lastError.code + ': ' + n.lastError.message;
  if (n.waiting) return n.waiting;
  if (n.drift) return 'drift: the node differs from its revision (monitor mode)';
  return '';
}
function live(on) {
  const el = document.getElementById('live');
  el.textContent = on ? 'live' : 'reconnecting…';
  el.classList.toggle('on', on);
}
function follow(onEvent) {
  const source = new EventSource('/api/events');
  source.onopen = () => live(true);
  source.onerror = () => live(false);
  for (const type of ['node', 'report', 'revision']) source.addEventListener(type, (e) => onEvent(type, JSON.parse(e.data)));
}

// The overview: one row per node; a stuck node's reason is in its row.
const nodes = new Map();
function row(n) {
  const tr = document.createElement('tr');
  tr.dataset.node = n.name;
  tr.dataset.state = n.state;
  const group = groupOf(n);
  if (group === 'stuck') tr.className = 'stuck';
  const reason = reasonOf(n);
  tr.innerHTML =
    '<td><a href="/nodes/' + encodeURIComponent(n.name) + '">' + esc(n.name) + '</a></td>' +
    '<td>' + esc(n.os) + '</td>' +
    '<td>' + esc((n.roles || []).join(', ')) + '</td>' +
    '<td class="state"><span class="badge ' + group + '">' + esc(n.state) + '</span></td>' +
    '<td class="phase">' + esc(n.phase || '') + '</td>' +
    '<td>' + esc((n.desiredVersions || {}).contrail || '—') + ' → ' + esc((n.observedVersions || {}).contrail || '—') + '</td>' +
    '<td>' + esc(short(n.lastAppliedRevision)) + ' / ' + esc(short(n.desiredRevision)) + '</td>' +
    '<td class="since" data-since="' + esc(n.since) + '">' + ago(n.since) + '</td>' +
    '<td class="reason ' + (n.waiting && !n.lastError ? 'waiting' : '') + '">' + esc(reason) + '</td>';
  return tr;
}
function renderSummary() {
  const counts = {};
  for (const n of nodes.values()) counts[groupOf(n)] = (counts[groupOf(n)] || 0) + 1;
  const names = { healthy: 'verified', busy: 'converging', stuck: 'stalled', drift: 'drifted', aside: 'set aside' };
  document.getElementById('summary').innerHTML = Object.entries(names)
    .filter(([g]) => counts[g])
    .map(([g, label]) => '<span class="' + g + '-count"><b>' + counts[g] + '</b> ' + label + '</span>')
    .join('');
}
function upsert(n) {
  nodes.set(n.name, n);
  const body = document.querySelector('#nodes tbody');
  const fresh = row(n);
  const old = body.querySelector('tr[data-node="' + CSS.escape(n.name) + '"]');
  if (old) old.replaceWith(fresh);
  else {
    const after = [...body.children].find((tr) => tr.dataset.node > n.name);
    body.insertBefore(fresh, after || null);
  }
  renderSummary();
}
function renderRevisions(revisions) {
  const current = revisions.find((r) => r.accepted);
  document.getElementById('revision').innerHTML = current
    ? 'revision <code>' + esc(short(current.sha)) + '</code> ' + esc(current.subject || '') +
      (current.signature ? ' <span class="signer">' + esc(current.signature.reason) + '</span>' : '')
    : 'no good revision yet';
  const newest = revisions[0];
  document.getElementById('rejected').innerHTML =
    newest && !newest.accepted
      ? '<div class="rejected"><b>Revision ' + esc(short(newest.sha)) + ' was rejected</b>; nodes stay on ' +
        esc(short(current && current.sha)) + '.<pre>' + esc((newest.errors || []).join('\n')) + '</pre></div>'
      : '';
}
async function bootOverview() {
  let revisions = await (await fetch('/api/revisions')).json();
  renderRevisions(revisions);
  for (const n of await (await fetch('/api/nodes')).json()) upsert(n);
  follow((type, data) => {
    if (type === 'node') upsert(data.node);
    if (type === 'revision') {
      revisions = [data, ...revisions];
      renderRevisions(revisions);
    }
  });
  setInterval(() => {
    for (const td of document.querySelectorAll('td.since')) td.textContent = ago(td.dataset.since);
  }, 1000);
  void renderReadiness();
  setInterval(renderReadiness, 5000);
}
// A banner while the daemon is not ready (a stalled source: newer commits are not being applied).
async function renderReadiness() {
  let banner = document.getElementById('not-ready');
  if (!banner) {
    banner = document.createElement('div');
    banner.id = 'not-ready';
    document.getElementById('rejected').before(banner);
  }
  const ready = await fetch('/readyz').then((r) => r.json()).catch(() => ({ ready: false, reason: 'the daemon does not answer' }));
  banner.innerHTML = ready.ready ? '' : '<div class="rejected"><b>Not ready:</b> ' + esc(ready.reason || 'unknown') + '</div>';
}

// The node page: the machine drawn with the current state lit, the timeline, the last run report.
function diagram(n) {
  const box = (state, label) =>
    '<div class="state' + (n.state === state ? ' lit' + (GROUP[state] === 'stuck' ? ' stuck-state' : state === 'verified' ? ' good-state' : '') : '') +
    '" data-state="' + state + '">' + esc(label || state) + '</div>';
  const phases = (n.phases || []).map((p) =>
    '<div class="state' + (n.state === 'converging' && n.phase === p ? ' lit' : '') + '" data-state="converging" data-phase="' + esc(p) + '">' + esc(p) + '</div>').join('<span class="arrow">→</span>');
  const rebootSteps = ['checkingCap', 'readingBootId', 'recorded', 'issuing', 'waitingForBoot', 'checkingReadiness', 'settling', 'confirming'];
  const reboot = rebootSteps.map((p) =>
    '<div class="state' + (n.state === 'rebooting' && n.phase === p ? ' lit' : '') + '" data-state="rebooting" data-phase="' + p + '">' + p + '</div>').join('<span class="arrow">→</span>');
  return '<div class="row">' + box('pending') + '<span class="arrow">→</span>' +
    '<div class="group' + (n.state === 'converging' ? ' lit' : '') + '"><span class="label">converging</span>' + phases + '</div>' +
    '<span class="arrow">→</span>' + box('verified') + '</div>' +
    '<div class="row"><div class="group' + (n.state === 'rebooting' ? ' lit' : '') + '"><span class="label">rebooting</span>' + reboot + '</div></div>' +
    '<div class="row">' + ['backoff', 'stalled', 'unreachable', 'paused', 'removing', 'removed'].map((s) => box(s)).join('') + '</div>';
}
function problem(n) {
  if (n.lastError && n.state !== 'verified') {
    const help = n.help ? '<p>' + esc(n.help.meaning) + '</p><p><b>What to do:</b> ' + esc(n.help.todo) + '</p>' : '';
    return '<div class="problem"><code>' + esc(n.lastError.code) + '</code> ' + esc(n.lastError.message) + help + '</div>';
  }
  if (n.waiting) return '<div class="notice">' + esc(n.waiting) + '</div>';
  if (n.drift) return '<div class="notice">Drift: the node differs from its revision; monitor mode reports it and changes nothing.</div>';
  return '';
}
function report(r) {
  if (!r) return '<p class="muted">no run yet</p>';
  const head = '<p>revision <code>' + esc(short(r.revision)) + '</code>, ' + (r.corrective ? 'corrective (drift fixed)' : 'intentional (a commit)') +
    ', started ' + esc(r.startedAt) + (r.result ? ', ended ' + esc(r.result) : ', running') + '</p>';
  const rows = r.phases.flatMap((p) => p.resources.map((x) =>
    '<tr><td>' + esc(p.phase) + '</td><td>' + esc(x.resource) + '</td><td>' + esc(x.status) + '</td><td>' +
    esc((x.before && x.before.differingProperties || []).join(', ')) + '</td><td>' + Math.round(x.durationMs) + ' ms</td><td>' +
    esc(x.error ? x.error.code + ': ' + x.error.message : '') + '</td></tr>')).join('');
  return head + '<table><thead><tr><th>phase</th><th>resource</th><th>status</th><th>differed</th><th>took</th><th>error</th></tr></thead><tbody>' + rows + '</tbody></table>';
}
function renderNode(n) {
  document.title = n.name + ': groundcrew';
  document.getElementById('title').innerHTML = esc(n.name) + ' <span class="badge ' + groupOf(n) + '" id="state">' + esc(n.state) + '</span>' +
    (n.phase ? ' <span class="muted">' + esc(n.phase) + '</span>' : '');
  document.getElementById('problem').innerHTML = problem(n);
  document.getElementById('diagram').innerHTML = diagram(n);
  document.querySelector('#timeline tbody').innerHTML = [...n.history].reverse().map((t) =>
    '<tr><td>' + esc(t.at) + '</td><td>' + esc(t.event || t.state) + '</td><td>' + esc(t.phase || '') + '</td><td><code>' + esc(short(t.revision)) +
    '</code></td><td>' + esc(t.detail || '') + '</td></tr>').join('');
  document.getElementById('report').innerHTML = report(n.reports[n.reports.length - 1]);
}
async function bootNode(name) {
  const load = async () => renderNode(await (await fetch('/api/nodes/' + encodeURIComponent(name))).json());
  await load();
  let pending;
  follow((type, data) => {
    const about = type === 'node' ? data.node.name : type === 'report' ? data.node : undefined;
    if (about !== name || pending) return;
    pending = setTimeout(() => { pending = undefined; void load(); }, 100);
  });
}
// A module script runs once the document is parsed: the body says which view this is.
if (document.body.dataset.view === 'node') void bootNode(document.body.dataset.node);
else void bootOverview();
`;
