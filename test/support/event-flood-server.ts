// A process of its own running the daemon's real server over a status store, for a test that measures its
// memory from outside: prints its URL, then on "go" (stdin) changes node statuses as fast as it can and
// prints how many bytes of events it has published and how many TCP connections it holds, as JSON lines.
// Run with tsx; GC_MAX_CLIENTS sets the cap on event streams. It stops pumping past 1 GiB of RSS so that a
// server without bounds fails its test without taking the machine down.

import { createInterface } from 'node:readline';
import { StatusStore } from '../../src/reconciler/status-store.js';
import { listenOnLoopback, statusServer } from './status-server.js';

const status = new StatusStore();
const server = statusServer(status, { eventStreams: { maxClients: Number(process.env.GC_MAX_CLIENTS ?? 256) } });
let connections = 0;
server.server.on('connection', (socket) => {
  connections++;
  socket.on('close', () => connections--);
});
const url = await listenOnLoopback(server);

let published = 0;
// About what one event weighs on the wire (its JSON), counted apart from the server.
status.on('change', (e) => {
  published += JSON.stringify(e).length;
});
const report = () => process.stdout.write(`${JSON.stringify({ published, connections, rss: process.memoryUsage().rss })}\n`);
process.stdout.write(`${JSON.stringify({ url })}\n`);

const LIMIT_RSS = 1024 * 1024 * 1024;
const detail = 'x'.repeat(2000);
let i = 0;
function pump() {
  if (process.memoryUsage().rss > LIMIT_RSS) return report();
  for (let n = 0; n < 20; n++, i++)
    status.update(`node-${i % 50}`, {
      name: `node-${i % 50}`,
      state: i % 2 === 0 ? 'converging' : 'verified',
      lastError: { code: 'GC_TEST', message: detail },
    });
  setImmediate(pump);
}
setInterval(report, 100);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'go') pump();
});
