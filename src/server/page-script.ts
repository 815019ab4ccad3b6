// The pages' script, served as /app.js (runs in the browser): keeps the server-rendered pages live from
// /api/events, and renders the node page from the JSON API. Plain JavaScript in a string: no build step,
// nothing fetched from anywhere but the daemon itself.

export const PAGE_SCRIPT = `
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

// Server-rendered views (overview, revisions, a revision's rollout): the HTML already holds the rows; on live
// events the script re-reads the page's regions from its fragment URL (at most every 400 ms) and swaps them
// in by id: one page of rows at most, never the whole cluster.
let refreshing = false;
let again = false;
let timer;
async function refresh() {
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    const res = await fetch(document.body.dataset.fragment + location.search, { headers: { accept: 'application/json' } });
    if (res.ok) {
      const { regions } = await res.json();
      for (const [id, html] of Object.entries(regions)) {
        const el = document.getElementById(id);
        if (el && el.innerHTML !== html) el.innerHTML = html;
      }
    }
  } finally {
    refreshing = false;
    if (again) { again = false; schedule(); }
  }
}
function schedule() {
  if (timer) return;
  timer = setTimeout(() => { timer = undefined; void refresh(); }, 400);
}
function tickAges() {
  setInterval(() => {
    for (const td of document.querySelectorAll('td.since')) td.textContent = ago(td.dataset.since);
  }, 1000);
}
function bootLive() {
  follow(() => schedule());
  tickAges();
}
// The overview's filters live in the URL: links navigate in place, the form filters as you type.
function navigate(url, push) {
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
  void refresh();
}
function fromForm() {
  const params = new URLSearchParams(location.search);
  for (const el of document.querySelectorAll('#filters [name]')) {
    if (el.value) params.set(el.name, el.value);
    else params.delete(el.name);
  }
  params.delete('cursor');
  const text = params.toString();
  return location.pathname + (text ? '?' + text : '');
}
function syncForm() {
  const params = new URLSearchParams(location.search);
  for (const el of document.querySelectorAll('#filters [name]')) {
    const value = params.get(el.name) || '';
    if (el.value !== value && document.activeElement !== el) el.value = value;
  }
}
function bootOverview() {
  bootLive();
  document.addEventListener('click', (e) => {
    const a = e.target.closest && e.target.closest('a[data-nav]');
    if (!a || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    const url = new URL(a.href);
    navigate(url.pathname + url.search, true);
    syncForm();
  });
  const form = document.getElementById('filters');
  let typing;
  form.addEventListener('submit', (e) => { e.preventDefault(); navigate(fromForm(), true); });
  form.addEventListener('input', (e) => {
    clearTimeout(typing);
    typing = setTimeout(() => navigate(fromForm(), false), e.target.tagName === 'SELECT' ? 0 : 200);
  });
  window.addEventListener('popstate', () => { syncForm(); void refresh(); });
  void renderReadiness();
  setInterval(renderReadiness, 5000);
}
// A banner while the daemon is not ready (a stalled source: newer commits are not being applied).
async function renderReadiness() {
  const ready = await fetch('/readyz').then((r) => r.json()).catch(() => ({ ready: false, reason: 'the daemon does not answer' }));
  let banner = document.getElementById('not-ready');
  if (ready.ready) { if (banner) banner.remove(); return; }
  if (!banner) {
    banner = document.createElement('div');
    banner.id = 'not-ready';
    banner.className = 'rejected';
    document.getElementById('rejected').prepend(banner);
  }
  banner.innerHTML = '<b>Not ready:</b> ' + esc(ready.reason || 'unknown');
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
    '<tr><td>' + esc(t.at) + '</td><td>' + esc(t.event || t.state) + '</td><td>' + esc(t.phase || '') + '</td><td>' +
    (t.revision ? '<a href="/revisions/' + encodeURIComponent(t.revision) + '"><code>' + esc(short(t.revision)) + '</code></a>' : '') +
    '</td><td>' + esc(t.detail || '') + '</td></tr>').join('');
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
const view = document.body.dataset.view;
if (view === 'node') void bootNode(document.body.dataset.node);
else if (view === 'overview') bootOverview();
else bootLive();
`;
