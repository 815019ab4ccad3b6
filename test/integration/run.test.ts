// `groundcrew run --config FILE` as systemd runs it: a process, sd_notify READY/WATCHDOG/STOPPING to a real
// NOTIFY_SOCKET, JSON logs on stdout with no credential in them, a clean stop on SIGTERM; and the config's
// errors with file:line:col.

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDaemonConfig } from '../../src/cli/daemon-config.js';
import { rootLogger } from '../../src/cli/logger.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const PASSWORDS = ['c0ntrail123', 'Contrail123!'];
const dir = mkdtempSync(join(tmpdir(), 'gc-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A unix datagram socket standing in for systemd's notify socket (Node's dgram cannot bind one). */
function notifySocket(path: string) {
  const py = spawn('python3', [
    '-u',
    '-c',
    'import socket, sys\ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nprint("bound")\nwhile True:\n    print(s.recv(4096).decode().replace("\\n", "|"))',
    path,
  ]);
  const lines: string[] = [];
  py.stdout.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  return { py, lines };
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('groundcrew run', () => {
  it('tells systemd it is ready, pings the watchdog, logs JSON without secrets, and stops on SIGTERM', async () => {
    const repo = join(dir, 'repo');
    cpSync(join(ROOT, 'inventory-repo-example'), repo, { recursive: true });
    const config = join(dir, 'groundcrew.yaml');
    writeFileSync(
      config,
      [
        'source:',
        '  path: repo',
        'stateDir: state',
        'listen: 127.0.0.1:0',
        'transport: sim',
        'sim: { rebootSeconds: 0.1, latencyMs: 0 }',
        'reboot: { timeout: 20s, settle: 50ms }',
        'log: { level: debug }',
        '',
      ].join('\n'),
    );
    const socketPath = join(dir, 'notify.sock');
    const notify = notifySocket(socketPath);
    await until(() => notify.lines.includes('bound'), 'the notify socket');
    let daemon: ChildProcess | undefined;
    try {
      daemon = spawn(process.execPath, [BIN, 'run', '--config', config], {
        env: { ...process.env, NOTIFY_SOCKET: socketPath, WATCHDOG_USEC: '400000' },
      });
      let stdout = '';
      let stderr = '';
      daemon.stdout?.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      daemon.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      await until(() => notify.lines.some((l) => l.startsWith('READY=1')), 'READY=1');
      const records = () =>
        stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { msg: string; url?: string; level: number });
      const url = records().find((r) => r.url)?.url as string;
      await until(() => notify.lines.includes('WATCHDOG=1'), 'WATCHDOG=1');
      // Converge, and read what the API says.
      let states: string[] = [];
      const poll = async () => {
        states = ((await (await fetch(`${url}/api/nodes`)).json()) as { state: string }[]).map((n) => n.state);
      };
      for (let i = 0; i < 300 && !(states.length === 6 && states.every((s) => s === 'verified')); i++) {
        await poll();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(states).toEqual(Array(6).fill('verified'));
      expect(records().some((r) => r.msg === 'revision accepted')).toBe(true);
      const cmdline = readFileSync(`/proc/${daemon.pid}/cmdline`, 'utf8');
      for (const secret of PASSWORDS) {
        expect(stdout).not.toContain(secret);
        expect(stderr).not.toContain(secret);
        expect(cmdline).not.toContain(secret);
      }
      daemon.kill('SIGTERM');
      const code = await new Promise((resolve) => daemon?.once('exit', resolve));
      expect(code).toBe(0);
      await until(() => notify.lines.includes('STOPPING=1'), 'STOPPING=1', 5_000);
    } finally {
      daemon?.kill('SIGKILL');
      notify.py.kill();
    }
  }, 60_000);

  it('rejects a bad config with file:line:col, and a did-you-mean for a misspelt key', async () => {
    const config = join(dir, 'bad.yaml');
    writeFileSync(config, ['source:', '  url: file:///srv/x.git', 'listen: 7070', 'workrs: 4', ''].join('\n'));
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [BIN, 'run', '--config', config], (err, _out, stderr) =>
        resolve({ code: err ? Number(err.code) : 0, stderr }),
      ),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${config}:3:9: `);
    expect(run.stderr).toMatch(new RegExp(`${config}:4:1: .*"workrs".*did you mean "workers"`));
  });

  it('the example config in systemd/ is valid', () => {
    const result = loadDaemonConfig(join(ROOT, 'systemd', 'groundcrew.example.yaml'), {});
    expect(result.ok ? [] : result.errors.map((e) => e.message)).toEqual([]);
  });

  it('redacts credentials wherever they sit in a log record', () => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    });
    const log = rootLogger('info', sink);
    log.info({ password: 'pw-1', target: { password: 'pw-2' }, req: { headers: { authorization: 'Bearer tok-3' } }, token: 'tok-4' }, 'x');
    for (const secret of ['pw-1', 'pw-2', 'tok-3', 'tok-4']) expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });
});
