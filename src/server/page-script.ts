// The pages' script, served as /app.js (runs in the browser): keeps the server-rendered pages live from
// /api/events. Plain JavaScript in a string: no build step, nothing fetched from anywhere but the daemon.

export const PAGE_SCRIPT = `
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
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
// The server replays nothing: a stream that was closed (the daemon restarted, or dropped this client for
// falling behind) reconnects on its own, and each open re-reads the page's regions for what it missed. A
// refusal (503 past the cap on streams) closes an EventSource for good: the page opens another a little later.
function follow(onEvent, onOpen) {
  const source = new EventSource('/api/events');
  source.onopen = () => { live(true); onOpen(); };
  source.onerror = () => {
    live(false);
    if (source.readyState === EventSource.CLOSED) setTimeout(() => follow(onEvent, onOpen), 5000 + Math.random() * 5000);
  };
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
function bootLive(about) {
  follow((type, data) => {
    if (!about || about(type, data)) schedule();
  }, schedule);
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
  for (const el of document.querySelectorAll('#filters [name]:not([type=hidden])')) {
    if (el.value) params.set(el.name, el.value);
    else params.delete(el.name);
  }
  params.delete('cursor');
  const text = params.toString();
  return location.pathname + (text ? '?' + text : '');
}
function syncForm() {
  const params = new URLSearchParams(location.search);
  for (const el of document.querySelectorAll('#filters [name]:not([type=hidden])')) {
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

// A module script runs once the document is parsed: the body says which view this is.
const view = document.body.dataset.view;
if (view === 'overview') bootOverview();
else if (view === 'node') {
  // Only this node's events: at 10,000 nodes the others' would keep it re-reading for nothing.
  const name = document.body.dataset.node;
  bootLive((type, data) => (type === 'node' ? data.node.name : type === 'report' ? data.node : undefined) === name);
} else bootLive();
`;
