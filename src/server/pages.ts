// The status page and the node page: small HTML shells whose script renders from the JSON API and keeps
// up through /api/events, so what a person sees is exactly what `groundcrew status --json` says.

// No inline script or style: the CSP allows only the daemon's own /app.js and /app.css; the page says
// which view to boot in data attributes.

const attr = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function shell(title: string, body: string, view: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/app.css">
<script type="module" src="/app.js"></script>
</head>
<body ${view}>
${body}
</body>
</html>
`;
}

export function overviewPage(): string {
  return shell(
    'groundcrew',
    `<header><h1>groundcrew</h1><div id="revision" class="revision">loading…</div><div id="live" class="live">connecting</div></header>
<div id="rejected"></div>
<section id="summary" class="summary"></section>
<table id="nodes">
<thead><tr><th>node</th><th>os</th><th>roles</th><th>state</th><th>phase</th><th>contrail desired → observed</th><th>revision applied / desired</th><th>in state</th><th>reason</th></tr></thead>
<tbody></tbody>
</table>`,
    'data-view="overview"',
  );
}

export function nodePage(name: string): string {
  return shell(
    `${attr(name)}: groundcrew`,
    `<header><a href="/">← all nodes</a><h1 id="title"></h1><div id="live" class="live">connecting</div></header>
<div id="problem"></div>
<h2>machine</h2>
<div id="diagram" class="diagram"></div>
<h2>timeline</h2>
<table id="timeline"><thead><tr><th>time</th><th>state</th><th>phase</th><th>revision</th><th>detail</th></tr></thead><tbody></tbody></table>
<h2>last run report</h2>
<div id="report"></div>`,
    `data-view="node" data-node="${attr(name)}"`,
  );
}
