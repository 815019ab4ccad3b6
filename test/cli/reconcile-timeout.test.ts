// `reconcile --wait --timeout`: Go-style durations (as Flux and kubectl take them) end the wait, a bare number is
// seconds, anything else is refused in one line; the timeout says what holds the node. The real binary against a
// real HTTP server that answers as a daemon whose node never finishes its pass (held by the disruption budget),
// and, as a daemon does, leaves a runtime record and proves its key (the CLI sends no token to a listener that cannot).

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityProof, newIdentityKey } from '../../src/daemon-identity.js';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
const HELD = 'waits for the disruption budget (maxUnavailable 1): win-compute-1 holds it';
let server: Server;
let url = '';
let dir = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-timeout-'));
  writeFileSync(join(dir, 'token'), 'a'.repeat(64), { mode: 0o600 });
  const key = newIdentityKey();
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    const nonce = /^\/api\/identity\?nonce=([0-9a-f]+)$/.exec(req.url ?? '')?.[1];
    if (nonce)
      return res.end(
        JSON.stringify({ proof: identityProof(key, nonce, { address: req.socket.localAddress, port: req.socket.localPort }) }),
      );
    if (req.method === 'POST' && req.url === '/api/reconcile') return res.end(JSON.stringify({ reconciling: ['win-compute-2'] }));
    if (req.url === '/api/nodes/win-compute-2')
      return res.end(JSON.stringify({ name: 'win-compute-2', state: 'verified', waiting: HELD, reports: [] }));
    res.statusCode = 404;
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  url = `http://127.0.0.1:${port}`;
  mkdirSync(join(dir, 'run'), { mode: 0o700 });
  writeFileSync(
    join(dir, 'run', `daemon-${port}.json`),
    JSON.stringify({ url, tokenFile: join(dir, 'token'), pid: process.pid, identity: key }),
    {
      mode: 0o600,
    },
  );
});
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const reconcile = (timeout: string) =>
  new Promise<{ code: number; stderr: string; ms: number }>((resolve) => {
    const started = Date.now();
    // The hang guard: 60 s, far past every timeout asked for here; a wait that never ends is killed and fails below.
    execFile(
      process.execPath,
      [BIN, 'reconcile', 'win-compute-2', '--wait', '--timeout', timeout, '--url', url, '--token-file', join(dir, 'token')],
      { encoding: 'utf8', timeout: 60_000, env: { ...process.env, GROUNDCREW_RUNTIME_DIR: join(dir, 'run') } },
      (err, _stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stderr, ms: Date.now() - started }),
    );
  });

describe('groundcrew reconcile --wait --timeout', () => {
  it('takes 2s, 1500ms and a bare 2 (seconds), gives up after about that long and says what holds the node', async () => {
    for (const timeout of ['2s', '1500ms', '2']) {
      const r = await reconcile(timeout);
      expect(r.stderr, `--timeout ${timeout}`).toContain(`timed out waiting for win-compute-2 (verified: ${HELD})`);
      expect(r.code, `--timeout ${timeout}`).toBe(1);
      expect(r.ms, `--timeout ${timeout} ended before the 60 s guard`).toBeLessThan(50_000);
    }
  }, 200_000);

  it('refuses what is not a duration in one line (then the usage, as for every bad argument), asking the daemon nothing', async () => {
    for (const timeout of ['5x', '2 m', '-3s', '0', 'soon']) {
      const r = await reconcile(timeout);
      expect(r.code, `--timeout ${timeout}`).toBe(1);
      expect(r.stderr.split('\n')[0], `--timeout ${timeout}`).toMatch(/is not a duration: give seconds \(30\) or a duration such as/);
    }
  }, 200_000);
});
