// 100 clients that open /api/events and never read a byte, while events flow: the server's memory, read from
// /proc by its RSS, stays within a bound (each client's unsent bytes are capped; one falling behind is
// dropped), and /healthz answers while they hang. The server runs in a process of its own
// (test/support/event-flood-server.ts) so that its memory is its alone.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait-until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const CLIENTS = 100;
/** Bytes of events published before the verdict: unbounded, every client would hold this much (1.6 GB in all). */
const PUBLISHED = 16 * 1024 * 1024;
/** Clients dropped for falling behind before the verdict: three times the 100 were replaced while events flowed. */
const DROPPED = 3 * CLIENTS;
/** What the server's RSS may grow by while the 100 hang. */
const GROWTH_BOUND = 128 * 1024 * 1024;

interface Progress {
  published: number;
  connections: number;
  rss: number;
}

let child: ChildProcess;
let url: URL;
let progress: Progress = { published: 0, connections: 0, rss: 0 };
/** A condition's name with the server's progress, for a timeout's message. */
const withProgress = (what: string) => () => `${what} (${JSON.stringify(progress)})`;
const sockets = new Set<Socket>();
let reports = 0;

/** The child's resident set, read by the kernel (not what the child says of itself). */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** A client that sends its request and never reads: paused from the start (so it never notices being dropped). */
function hangingClient(): void {
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  sockets.add(socket);
  socket.pause();
  socket.on('error', () => undefined);
  socket.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${url.port}\r\nAccept: text/event-stream\r\n\r\n`);
}

/** As many new hanging clients as the server lost since its last report: 100 hang at all times, as a flood would. */
let toppedUpAt = -1;
function topUp(): void {
  if (reports === toppedUpAt) return;
  toppedUpAt = reports;
  for (let n = progress.connections; n < CLIENTS; n++) hangingClient();
}

/** Streams the server dropped for falling behind, from its /metrics (0 while it exports no such count). */
async function droppedBehind(): Promise<number> {
  const metrics = await (await fetch(new URL('/metrics', url))).text();
  return Number(/groundcrew_event_streams_turned_away_total\{reason="behind"\} (\d+)/.exec(metrics)?.[1] ?? 0);
}

beforeAll(async () => {
  // node itself with tsx's loader (the tsx command would put a process of its own between: its pid is not the server's).
  child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test', 'support', 'event-flood-server.ts')], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = new Promise<string>((resolve) => lines.once('line', resolve));
  url = new URL((JSON.parse(await first) as { url: string }).url);
  lines.on('line', (line) => {
    progress = JSON.parse(line) as Progress;
    reports++;
  });
}, 60_000);

afterAll(() => {
  for (const socket of sockets) socket.destroy();
  child?.kill();
});

describe('/api/events under 100 clients that never read', () => {
  it('keeps the server within its memory bound, and /healthz answers while they hang', async () => {
    for (let n = 0; n < CLIENTS; n++) hangingClient();
    await waitUntil(withProgress('100 connections'), () => progress.connections >= CLIENTS, { timeoutMs: 60_000 });
    const pid = child.pid as number;
    const before = rssOf(pid);
    child.stdin?.write('go\n');
    let peak = before;
    let checkedAt = 0;
    await waitUntil(
      withProgress(`${PUBLISHED} bytes of events published`),
      async () => {
        peak = Math.max(peak, rssOf(pid));
        // Fail as soon as the bound is passed: an unbounded server would go on growing.
        if (peak - before > GROWTH_BOUND) return true;
        if (progress.published - checkedAt >= 1024 * 1024) {
          checkedAt = progress.published;
          const health = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(10_000) });
          expect(health.status).toBe(200);
        }
        topUp();
        return progress.published >= PUBLISHED && (await droppedBehind()) >= DROPPED;
      },
      { timeoutMs: 180_000 },
    );
    expect(peak - before, `RSS grew from ${before} to ${peak}`).toBeLessThanOrEqual(GROWTH_BOUND);
    // They were dropped for falling behind (and others came), not left to hold what they never read.
    expect(await droppedBehind()).toBeGreaterThanOrEqual(DROPPED);
  }, 300_000);
});
