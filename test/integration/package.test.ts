// The package as an operator gets it: `npm pack` from a copy of this checkout (prepack builds), the tarball
// installed into an empty prefix with npm, and the installed `groundcrew` run: --version and version, the demo to
// all nodes verified, and `run --config` to ready. Issue 29: the tarball had no dist/ (nothing built it), no
// deploy/ or docs, and carried the grammars' native npm packages for two .wasm files.

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'gc-package-'));
const copy = join(dir, 'checkout');
const prefix = join(dir, 'prefix');
const bin = join(prefix, 'bin', 'groundcrew');
const installed = join(prefix, 'lib', 'node_modules', 'groundcrew');
let tarball = '';
let copyHead = '';
const children: ChildProcess[] = [];

const sh = (cmd: string, args: string[], cwd: string) =>
  execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

beforeAll(() => {
  // The checkout's files as git sees them (tracked, and new ones not ignored), in a repo of their own: prepack's build
  // writes the copy's dist/, never the one the other tests run.
  const files = sh('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], ROOT).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  sh('git', ['init', '-q'], copy);
  sh('git', ['add', '-A'], copy);
  sh('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'packed'], copy);
  copyHead = sh('git', ['rev-parse', 'HEAD'], copy).trim();
  const packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', dir], copy)) as { filename: string }[];
  tarball = join(dir, packed[0]?.filename as string);
  sh('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball], dir);
}, 600_000);

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the installed binary; resolves with its output once `ready` matches it. */
function startUntil(
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(bin, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`groundcrew ${args.join(' ')}: no ${ready} within 180 s:\n${output}`)), 180_000);
    const look = (d: Buffer) => {
      output += d;
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`groundcrew ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('the npm package', () => {
  it('carries the build, the grammars as .wasm, deploy/ and the docs the unit names; no native grammar packages', () => {
    const listed = sh('tar', ['-tzf', tarball], dir).split('\n');
    for (const file of [
      'package/dist/src/cli/main.js',
      'package/dist/grammars/tree-sitter-powershell.wasm',
      'package/dist/grammars/tree-sitter-bash.wasm',
      'package/dist/build-info.json',
      'package/deploy/prometheus/groundcrew-rules.yaml',
      'package/deploy/grafana/groundcrew-dashboard.json',
      'package/docs/operations.md',
      'package/docs/errors.md',
      'package/systemd/groundcrew.service',
      'package/inventory-repo-example/instances.yaml',
    ])
      expect(listed).toContain(file);
    expect(listed.filter((f) => f.startsWith('package/test/') || f.startsWith('package/src/'))).toEqual([]);
    // What the unit's Documentation= points to is in the package.
    const unit = readFileSync(join(installed, 'systemd', 'groundcrew.service'), 'utf8');
    for (const [, doc] of unit.matchAll(/^Documentation=.*\/node_modules\/groundcrew\/(\S+)$/gm))
      expect(existsSync(join(installed, doc as string))).toBe(true);
    expect(readdirSync(join(installed, 'node_modules')).filter((m) => m.startsWith('tree-sitter'))).toEqual([]);
  });

  it('groundcrew --version and version say the version and the commit it was built from', () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    expect(sh(bin, ['--version'], dir).trim()).toBe(version);
    expect(JSON.parse(sh(bin, ['version', '--json'], dir))).toMatchObject({ version, commit: copyHead });
  });

  it('groundcrew demo runs the example cluster to every node verified', async () => {
    const demo = await startUntil(['demo', '--port', '0', '--reboot-seconds', '0.2'], /(\d+) of \1 nodes verified/);
    expect(demo.output()).toMatch(/status page: +http:\/\/127\.0\.0\.1:\d+\//);
    await stop(demo.child);
  }, 240_000);

  it('groundcrew run --config starts the daemon and answers /readyz', async () => {
    cpSync(join(installed, 'inventory-repo-example'), join(dir, 'repo'), { recursive: true });
    const config = join(dir, 'groundcrew.yaml');
    writeFileSync(
      config,
      ['source:', '  path: repo', 'stateDir: state', 'listen: 127.0.0.1:0', 'transport: sim', 'sim: { rebootSeconds: 0.2 }', ''].join('\n'),
    );
    const run = await startUntil(['run', '--config', config], /status page and API listening/);
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(run.output())?.[1];
    expect(url).toBeDefined();
    for (let ready = false; !ready; ) {
      ready = (await fetch(`${url}/readyz`)).status === 200;
      if (!ready) await new Promise((r) => setTimeout(r, 200));
    }
    expect(await stop(run.child)).toBe(0);
  }, 240_000);
});
