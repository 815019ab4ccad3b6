// `groundcrew run` given what an operator gets wrong on day one: each is one line on stderr that names the
// file, port or variable, a non-zero exit, and never a Node stack trace (issue 29: each of these printed one,
// and under systemd a restart loop filled the journal with them).

import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

function run(args: string[], env: Record<string, string> = {}, uid?: number) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GROUNDCREW_')));
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [BIN, 'run', ...args],
      { encoding: 'utf8', env: { ...clean, ...env }, timeout: 60_000, ...(uid === undefined ? {} : { uid, gid: uid }) },
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

  it('a source.branch Git cannot have is refused at its line, not fetched forever', async () => {
    const file = join(dir, 'branch.yaml');
    writeFileSync(
      file,
      ['source:', `  url: ${join(dir, 'no-remote.git')}`, '  branch: "main..x"', 'stateDir: state-branch', ''].join('\n'),
    );
    expectOneLine(await run(['--config', file]), 'branch.yaml:3:11', 'source.branch', '".."');
    const dashed = await run(['--config', file], { GROUNDCREW_SOURCE_BRANCH: '--upload-pack=touch x' });
    expectOneLine(dashed, 'GROUNDCREW_SOURCE_BRANCH', 'must not start with "-"');
  });

  it('an API token file that is a link to nothing, a directory or a pipe is named, with what it is', async () => {
    const dangling = join(dir, 'token-link');
    symlinkSync(join(dir, 'gone', 'api-token'), dangling);
    expectOneLine(
      await run(['--config', config('token-link', [`apiTokenFile: ${dangling}`])]),
      `${dangling}: a symbolic link to ${join(dir, 'gone', 'api-token')}, which is not there`,
    );
    const folder = join(dir, 'token-dir');
    mkdirSync(folder);
    expectOneLine(await run(['--config', config('token-dir', [`apiTokenFile: ${folder}`])]), `${folder}: a directory`);
    // A pipe would hold the start forever: refused before it is opened.
    const pipe = join(dir, 'token-pipe');
    execFileSync('mkfifo', [pipe]);
    expectOneLine(await run(['--config', config('token-pipe', [`apiTokenFile: ${pipe}`])]), `${pipe}: not a regular file`);
  });

  it.runIf(process.geteuid?.() === 0)('an API token file the daemon user cannot read is named', async () => {
    // Run as nobody (65534): root reads any file. Its state directory is its own; the token is root's, 0600.
    const home = join(dir, 'as-nobody');
    mkdirSync(home);
    const token = join(home, 'root-token');
    writeFileSync(token, `${'t'.repeat(32)}\n`, { mode: 0o600 });
    const file = join(home, 'nobody.yaml');
    writeFileSync(
      file,
      [
        'source:',
        `  path: ${join(dir, 'repo')}`,
        'stateDir: state',
        'listen: 127.0.0.1:0',
        'transport: sim',
        `apiTokenFile: ${token}`,
        '',
      ].join('\n'),
    );
    mkdirSync(join(home, 'state'), { mode: 0o700 });
    chownSync(join(home, 'state'), 65534, 65534);
    chmodSync(home, 0o755);
    chmodSync(dir, 0o755);
    const result = await run(['--config', file], { XDG_RUNTIME_DIR: join(home, 'state') }, 65534);
    expectOneLine(result, `${token}: permission denied`);
  });

  it("a link planted at the state directory's own token file is refused, not followed", async () => {
    mkdirSync(join(dir, 'state-planted'), { mode: 0o700 });
    symlinkSync(join(dir, 'elsewhere-token'), join(dir, 'state-planted', 'api-token'));
    expectOneLine(await run(['--config', config('planted')]), join(dir, 'state-planted', 'api-token'), 'symbolic link', 'GC_STATE_UNSAFE');
  });
});
