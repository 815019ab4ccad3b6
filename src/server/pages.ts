// The status page and the node page: small HTML shells whose script renders from the JSON API and keeps
// up through /api/events, so what a person sees is exactly what `groundcrew status --json` says.

import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';

function shell(title: string, body: string, boot: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${body}
<script type="module">
${PAGE_SCRIPT}
${boot}
</script>
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
    'bootOverview();',
  );
}

export function nodePage(name: string): string {
  const safe = JSON.stringify(name).replace(/</g, '\\u003c');
  return shell(
    `${name.replace(/[<>&"]/g, '')}: groundcrew`,
    `<header><a href="/">← all nodes</a><h1 id="title"></h1><div id="live" class="live">connecting</div></header>
<div id="problem"></div>
<h2>machine</h2>
<div id="diagram" class="diagram"></div>
<h2>timeline</h2>
<table id="timeline"><thead><tr><th>time</th><th>state</th><th>phase</th><th>revision</th><th>detail</th></tr></thead><tbody></tbody></table>
<h2>last run report</h2>
<div id="report"></div>`,
    `bootNode(${safe});`,
  );
}
