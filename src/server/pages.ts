// The node page: a small shell whose script renders the node from /api/nodes/:name and keeps up through
// /api/events (the machine diagram, the timeline with each entry's revision linked, the last run report).

import { shell, topBar } from './html.js';

export function nodePage(name: string): string {
  return shell(
    `${name}: groundcrew`,
    `${topBar('<span id="title"></span>', 'node')}
<div id="problem"></div>
<h2>machine</h2>
<div id="diagram" class="diagram"></div>
<h2>timeline</h2>
<table id="timeline"><thead><tr><th>time</th><th>state</th><th>phase</th><th>revision</th><th>detail</th></tr></thead><tbody></tbody></table>
<h2>last run report</h2>
<div id="report"></div>`,
    { view: 'node', node: name },
  );
}
