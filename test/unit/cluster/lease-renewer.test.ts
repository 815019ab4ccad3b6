// A renewal's answer that arrived in time counts even when the event loop was held past the attempt's
// deadline (issue 19: 10,000 nodes starting held the loop; the deadline timer fired before the waiting answer
// was read, and the member fenced itself). The answer comes from an echo server in a worker thread, so it
// reaches this thread's socket while this thread is blocked (Atomics.wait).

import { createConnection } from 'node:net';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredWithin } from '../../../src/cluster/lease-renewer.js';
import { within } from '../../../src/cluster/membership.js';

const ECHO = `
const { createServer } = require('node:net');
const { parentPort } = require('node:worker_threads');
// The test destroys its end after the echo: the reset that may follow is expected, not an error.
const server = createServer((s) => s.on('data', (d) => s.write(d)).on('error', () => {}));
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/** Writes a line to the echo server, then blocks this thread for `blockMs`; resolves with the echo. */
function askThenBlock(port: number, blockMs: number, wait: (p: Promise<string>) => Promise<string>): Promise<string> {
  return new Promise((resolveConnected, rejectConnected) => {
    const socket = createConnection(port, '127.0.0.1', () => {
      const answer = new Promise<string>((resolve) => socket.once('data', (d) => resolve(d.toString())));
      socket.write('renew');
      const judged = wait(answer).finally(() => socket.destroy());
      // Held, as by a burst of work: the answer lands in the socket meanwhile; its deadline passes.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, blockMs);
      resolveConnected(judged);
    });
    socket.on('error', rejectConnected);
  });
}

describe('answeredWithin', () => {
  let worker: Worker;
  let port: number;
  beforeAll(async () => {
    worker = new Worker(ECHO, { eval: true });
    port = await new Promise((resolve) => worker.once('message', resolve));
  });
  afterAll(() => worker.terminate());

  it('counts an answer that was waiting when a held loop let its deadline fire', async () => {
    await expect(askThenBlock(port, 1000, (p) => answeredWithin(p, 50, 'lease renewal'))).resolves.toBe('renew');
  });

  it('the plain deadline (what the renewal used before) fails the same answer', async () => {
    await expect(askThenBlock(port, 1000, (p) => within(p, 50, 'lease renewal'))).rejects.toThrow('no answer from etcd within 50 ms');
  });

  it('still fails an attempt that got no answer', async () => {
    await expect(answeredWithin(new Promise<never>(() => undefined), 50, 'lease renewal')).rejects.toThrow('within 50 ms');
  });
});
