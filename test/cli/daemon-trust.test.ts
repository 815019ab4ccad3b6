// The CLI sends the API token only to the daemon that left the runtime record (issue 39): a listener on the port run
// by another local user (`nobody`, through setpriv; the tests run as root) gets no Authorization header, whether the
// daemon is gone, its record's pid now names the impostor's process, or the impostor relays the daemon's proof. The
// real daemon still answers, found by its record or by --config without --url.

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/wait-until.js';

/** A listener that logs each request (URL and Authorization) as a JSON line and answers as a daemon with no nodes. */
const IMPOSTOR = `
const http = require('node:http');
const [host, port, relay] = process.argv.slice(1);
const server = http.createServer((req, res) => {
  console.log(JSON.stringify({ url: req.url, authorization: req.headers.authorization ?? null, uid: process.getuid() }));
  if (relay && req.url.startsWith('/api/identity')) {
    // The daemon's own proof, carried over from where it listens.
    http.get(relay + req.url, (answer) => { res.writeHead(answer.statusCode, answer.headers); answer.pipe(res); });
    return;
  }
  res.setHeader('content-type', 'application/json');
  if (req.url.startsWith('/api/identity')) return res.end(JSON.stringify({ proof: 'ab'.repeat(32) }));
  res.end(req.url.startsWith('/api/nodes') ? '[]' : '[]');
});
server.listen(Number(port), host, () => console.log('listening'));
`;

interface Impostor {
  pid: number;
  /** Every request it saw. */
  requests(): { url: string; authorization: string | null; uid: number }[];
  stop(): Promise<void>;
}

async function startImpostor(host: string, port: number, relay?: string): Promise<Impostor> {
  const child: ChildProcess = spawn(
    'setpriv',
    [
      '--reuid=nobody',
      '--regid=nogroup',
      '--clear-groups',
      process.execPath,
      '-e',
      IMPOSTOR,
      host,
      String(port),
      ...(relay ? [relay] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await waitUntil(
    () => `the impostor to listen on ${host}:${port}:\n${out}`,
    () => out.includes('listening') || (child.exitCode !== null && `exited: ${out}`),
  ).then((v) => {
    if (v !== true) throw new Error(`the impostor did not start: ${v}`);
  });
  return {
    pid: child.pid as number,
    requests: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l)),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

let daemon: DaemonProcess;
const impostors: Impostor[] = [];
beforeAll(async () => {
  daemon = await startDaemonProcess();
}, 60_000);
afterEach(async () => {
  for (const i of impostors.splice(0)) await i.stop();
});
afterAll(async () => {
  await daemon?.stop();
});

const port = () => Number(new URL(daemon.url).port);
const recordFile = () => join(daemon.dir, 'run', 'groundcrew', `daemon-${port()}.json`);
const config = () => join(daemon.dir, 'groundcrew.yaml');

describe('the CLI and the daemon it talks to', () => {
  it('finds the running daemon by its record (no --url) and by --config, and sends its requests there', async () => {
    await waitUntil('the example nodes in `status`', async () => {
      const r = await daemon.cli('status');
      return r.status === 0 && r.stdout.includes('win-compute-1') && r;
    });
    // The daemon listens on a port of its own choosing (listen: 127.0.0.1:0): 7070 is not it.
    expect(port()).not.toBe(7070);
    const byConfig = await daemon.cli('status', '--config', config());
    expect(byConfig.stderr).toBe('');
    expect(byConfig.status).toBe(0);
    expect(byConfig.stdout).toContain('win-compute-1');
    const reconcile = await daemon.cli('reconcile', 'ctrl1');
    expect(reconcile.stderr).toBe('');
    expect(reconcile.stdout.trim()).toBe('reconciling 1 node: ctrl1');
  }, 60_000);

  it("refuses a relay: a listener on another loopback address that carries the daemon's own proof gets no token", async () => {
    const relay = await startImpostor('127.0.0.2', port(), daemon.url);
    impostors.push(relay);
    const r = await daemon.cli('reconcile', 'ctrl1', '--url', `http://127.0.0.2:${port()}`);
    expect(relay.requests().map((q) => q.url.split('?')[0])).toEqual(['/api/identity']);
    expect(relay.requests().every((q) => q.authorization === null && q.uid === 65534)).toBe(true);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`the listener at http://127.0.0.2:${port()} is not the groundcrew daemon of ${recordFile()}`);
  }, 60_000);

  it('sends nothing to a listener of user nobody on the port once the daemon is gone, nor when the record names its pid', async () => {
    const record = JSON.parse(readFileSync(recordFile(), 'utf8')) as { pid: number; tokenFile: string };
    // The daemon dies without removing its record (a crash); another local user binds its port.
    process.kill(record.pid, 'SIGKILL');
    await waitUntil('the daemon to die', () => !daemon.running());
    const impostor = await startImpostor('127.0.0.1', port());
    impostors.push(impostor);

    for (const args of [
      ['status', '--url', daemon.url, '--config', config()],
      ['status', '--url', daemon.url, '--token-file', record.tokenFile],
      ['reconcile', 'ctrl1', '--url', daemon.url, '--config', config()],
    ]) {
      const r = await daemon.cli(...args);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toContain(`no running groundcrew daemon on this host recorded ${daemon.url}`);
      expect(r.stderr, args.join(' ')).toContain('the API token was not sent');
    }
    expect(impostor.requests()).toEqual([]);

    // The dead daemon's pid is taken again, by the impostor's process: the record looks live; its key is not the impostor's.
    writeFileSync(recordFile(), JSON.stringify({ ...record, pid: impostor.pid }), { mode: 0o600 });
    for (const args of [['status'], ['status', '--url', daemon.url], ['history', 'ctrl1', '--url', daemon.url]]) {
      const r = await daemon.cli(...args);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.stderr, args.join(' ')).toContain(`the listener at ${daemon.url} is not the groundcrew daemon of ${recordFile()}`);
    }
    const seen = impostor.requests();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((q) => q.uid === 65534)).toBe(true);
    // It was asked for its proof, and nothing else: no Authorization header, and no read either.
    expect(seen.map((q) => q.url.split('?')[0])).toEqual(Array(seen.length).fill('/api/identity'));
    expect(seen.filter((q) => q.authorization !== null)).toEqual([]);
  }, 90_000);
});
