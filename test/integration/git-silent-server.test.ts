// A Git server that takes the connection and never answers (a firewall that drops, a hung host): the source's
// start returns anyway (the daemon serves and tells systemd it is ready), the look goes on, the source says it
// is stalled, and stop ends the hung git.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitSource } from '../../src/source/git-source.js';
import { waitUntil } from '../support/wait-until.js';

let dir: string;
let silent: Server;
const sockets: Socket[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-silent-'));
  silent = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('a Git server that never answers', () => {
  it('does not hold the start; the source says it is stalled; stop ends git', async () => {
    const { port } = silent.address() as { port: number };
    const src = new GitSource({
      url: `http://127.0.0.1:${port}/repo.git`,
      branch: 'main',
      path: '',
      checkout: join(dir, 'checkout'),
      pollMs: 200,
      firstLookWaitMs: 300,
      environment: { PATH: process.env.PATH, HOME: dir },
      log: pino({ level: 'silent' }),
      onRevision: async () => undefined,
    });
    await src.start();
    try {
      await waitUntil('the source to say it is stalled', () => src.stalled());
      expect(src.stalled()).toMatch(/has not finished a look at main for \d+s/);
      // It is git waiting on this server: it connected, and was never answered.
      expect(sockets.length).toBeGreaterThan(0);
    } finally {
      await src.stop();
    }
  });
});
