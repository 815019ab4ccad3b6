// What every server-rendered page shares: escaping, the page shell (no inline script or style: the CSP
// allows only the daemon's /app.js and /app.css) and the words the pages use for states and times.

import { groupOfState } from '../node-state.js';
import type { NodeStatus } from '../reconciler/status-store.js';

/** Text or an attribute value made inert in HTML. */
export const esc = (v: unknown): string => String(v ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const short = (sha: string | undefined): string => (sha ? sha.slice(0, 12) : '—');

/** The colour group of a node: its state's (node-state.ts), or drifted. */
export const groupOf = (n: NodeStatus): string => (n.state === 'verified' && n.drift ? 'drift' : groupOfState(n.state));

/** "3 min 2 s" since `iso`; the page's script keeps it counting. */
export function ago(iso: string, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** A whole page. `view` names the script's view; `live` is the fragment URL the script re-reads on events. */
export function shell(title: string, body: string, data: Record<string, string>): string {
  const attrs = Object.entries(data)
    .map(([k, v]) => `data-${k}="${esc(v)}"`)
    .join(' ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body ${attrs}>
${body}
</body>
</html>
`;
}

/** The bar on top of every page: where you are, the way to the other views, and whether it is live. */
export function topBar(title: string, current: 'nodes' | 'revisions' | 'node'): string {
  const link = (href: string, label: string, on: boolean) => `<a href="${href}"${on ? ' class="on"' : ''}>${label}</a>`;
  return `<header><h1>${title}</h1><nav class="views">${link('/', 'nodes', current === 'nodes')}${link('/revisions', 'revisions', current === 'revisions')}</nav><div id="live" class="live">not live (no script)</div></header>`;
}
