// `npm run bench`: runs every benchmark built so far, prints one line per figure, writes bench-results/*.json.

import { mkdirSync, writeFileSync } from 'node:fs';
import { runInventoryParse } from './inventory-parse.js';

mkdirSync('bench-results', { recursive: true });

const parse = runInventoryParse();
console.log(
  `inventory-parse: ${parse.nodes} nodes (${(parse.bytes / 1024 / 1024).toFixed(2)} MiB) -> DesiredState: median ${parse.medianMs.toFixed(1)} ms, p90 ${parse.p90Ms.toFixed(1)} ms over ${parse.runs} runs`,
);
writeFileSync('bench-results/inventory-parse.json', `${JSON.stringify(parse, null, 2)}\n`);
