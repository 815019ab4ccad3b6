// `groundcrew run` given what an operator gets wrong on day one: each is one line on stderr that names the
// file, port or variable, a non-zero exit, and never a Node stack trace (issue 29: each of these printed one,
// and under systemd a restart loop filled the journal with them).

import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'gc-mistakes-'));
let busy: Server;
let busyPort = 0;

beforeAll(async () => {
  cpSync(join(ROOT, 'inventory-repo-example'), join(dir, 'repo'), { recursive: true });
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(() => {
  busy?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A config that would start, with `extra` lines added. */
function config(name: string, extra: string[] = [], listen = '127.0.0.1:0'): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    ['source:', '  path: repo', `stateDir: state-${name}`, `listen: ${listen}`, 'transport: sim', ...extra, ''].join('\n'),
  );
  return file;
}

function run(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GROUNDCREW_')));
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [BIN, 'run', ...args],
      { encoding: 'utf8', env: { ...clean, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    ),
  );
}

/** One line, naming what is wrong, no stack. */
function expectOneLine(result: { code: number; stdout: string; stderr: string }, ...mentions: string[]): void {
  expect(result.code).not.toBe(0);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  for (const m of mentions) expect(lines[0]).toContain(m);
  expect(`${result.stdout}\n${result.stderr}`).not.toMatch(/^\s+at /m);
}

describe('groundcrew run: operator mistakes are one line', () => {
  it('a config file that is not there', async () => {
    expectOneLine(await run(['--config', join(dir, 'nope.yaml')]), 'nope.yaml', 'no such file');
  });

  it('GROUNDCREW_CONFIG names the config when --config is not given, and /etc/groundcrew/groundcrew.yaml is the default', async () => {
    expectOneLine(await run([], { GROUNDCREW_CONFIG: join(dir, 'from-env.yaml') }), 'from-env.yaml', 'no such file');
    const byDefault = await run([]);
    expect(byDefault.stderr).toContain('/etc/groundcrew/groundcrew.yaml');
  });

  it('a directory given as the config', async () => {
    expectOneLine(await run(['--config', dir]), dir, 'a directory');
  });

  it('a port in use', async () => {
    expectOneLine(await run(['--config', config('port', [], `127.0.0.1:${busyPort}`)]), `127.0.0.1:${busyPort}`, 'in use');
  });

  it('a secret file that is not there', async () => {
    const missing = join(dir, 'secrets', 'github-secret');
    expectOneLine(
      await run(['--config', config('secret', ['webhooks:', '  github:', `    secretFile: ${missing}`])]),
      missing,
      'no such file',
    );
  });

  it('a state directory that is a link (something could plant files there) is refused by name', async () => {
    mkdirSync(join(dir, 'elsewhere'), { recursive: true });
    symlinkSync(join(dir, 'elsewhere'), join(dir, 'state-linked'));
    expectOneLine(await run(['--config', config('linked')]), 'state-linked', 'symbolic link', 'GC_STATE_UNSAFE');
  });

  it('a bad value in the environment is blamed on the variable, not on the config file', async () => {
    const result = await run(['--config', config('env')], { GROUNDCREW_WORKERS: 'abc' });
    expectOneLine(result, 'GROUNDCREW_WORKERS', '"abc"');
    expect(result.stderr).not.toContain('env.yaml');
  });
});
