// The package as an operator gets it: `npm pack` from a copy of this checkout (prepack builds), the tarball
// installed into an empty prefix with npm, and the installed `groundcrew` run: --version and version, the demo to
// all nodes verified, and `run --config` to ready. Then docs/operations.md's install steps, run as written, as root,
// on this machine's own root behind overlays (nothing they write outlives the test). Issue 29: the tarball had no
// dist/ (nothing built it), no deploy/ or docs, and carried the grammars' native npm packages for two .wasm files;
// the documented install ended in a daemon that died on files the example config named, and a CLI that could not
// find the daemon's token under the shipped unit.

import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../support/wait-until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'gc-package-'));
const copy = join(dir, 'checkout');
const prefix = join(dir, 'prefix');
const bin = join(prefix, 'bin', 'groundcrew');
const installed = join(prefix, 'lib', 'node_modules', 'groundcrew');
let tarball = '';
let copyHead = '';
let installLog = '';
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
  // npm's warnings on stderr: an EBADENGINE there means a dependency wants a newer Node than `engines` says.
  const install = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (install.status !== 0) throw new Error(`npm install failed: ${install.stderr}`);
  installLog = install.stderr;
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

/** The shell lines of the fenced block after `marker` in a markdown text, and of the `n`-th block after that. */
function shellBlocks(markdown: string, marker: string): string[][] {
  const from = markdown.indexOf(marker);
  expect(from).toBeGreaterThanOrEqual(0);
  return [...markdown.slice(from).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    (m[1] as string)
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter(Boolean),
  );
}

/**
 * What systemd does to start the unit (no systemd runs here): its state and runtime directories, its user, umask and
 * environment, then its ExecStart, found on systemd's fixed search path.
 */
function unitStart(unit: string, log: string): string[] {
  const key = (name: string) => [...unit.matchAll(new RegExp(`^${name}=(.*)$`, 'gm'))].map((m) => (m[1] as string).trim());
  const user = key('User')[0] as string;
  const group = key('Group')[0] as string;
  const state = `/var/lib/${key('StateDirectory')[0]}`;
  const runtime = `/run/${key('RuntimeDirectory')[0]}`;
  const env = key('Environment').join(' ');
  const exec = key('ExecStart')[0] as string;
  return [
    `install -d -m ${key('StateDirectoryMode')[0]} -o ${user} -g ${group} ${state}`,
    `install -d -m ${key('RuntimeDirectoryMode')[0]} -o ${user} -g ${group} ${runtime}`,
    `(umask ${key('UMask')[0]}; cd /; exec setpriv --reuid ${user} --regid ${group} --init-groups env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin HOME=${state} USER=${user} STATE_DIRECTORY=${state} RUNTIME_DIRECTORY=${runtime} ${env} ${exec}) >${log} 2>&1 &`,
  ];
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
    // `engines` says what the installed dependencies need: npm found none wanting a newer Node.
    expect(installLog).not.toContain('EBADENGINE');
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
    await waitUntil('/readyz to say ready', async () => (await fetch(`${url}/readyz`)).status === 200, { timeoutMs: 120_000 });
    expect(await stop(run.child)).toBe(0);
  }, 240_000);
});

describe.skipIf(process.getuid?.() !== 0)('docs/operations.md: the install steps as written', () => {
  it('end with a running daemon, systemd-analyze verify passing on the unit, and the CLI finding its token', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    const [install = [], start = []] = shellBlocks(docs, '<!-- install-steps');
    expect(install).toContain('systemd-analyze verify /etc/systemd/system/groundcrew.service');
    // The inventory the operator points the daemon at: a bare repo the daemon's user can read.
    const work = join(dir, 'inventory');
    cpSync(join(ROOT, 'inventory-repo-example'), work, { recursive: true });
    sh('git', ['init', '-q', '-b', 'main'], work);
    sh('git', ['add', '-A'], work);
    sh('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'inventory'], work);
    sh('git', ['clone', '-q', '--bare', work, join(dir, 'inventory.git')], dir);
    const unit = readFileSync(join(copy, 'systemd', 'groundcrew.service'), 'utf8');
    const log = join(dir, 'daemon.log');
    const upper = join(dir, 'overlay');
    const script = [
      'set -euo pipefail',
      'ip link set lo up',
      // This machine's root, every write of the steps going to a directory of the test's.
      ...['usr', 'etc', 'var', 'run'].map(
        (d) =>
          `mkdir -p ${upper}/${d}/upper ${upper}/${d}/work && mount -t overlay overlay -o lowerdir=/${d},upperdir=${upper}/${d}/upper,workdir=${upper}/${d}/work /${d}`,
      ),
      `cd ${dir}`,
      // The namespace has no network: npm installs the tarball's dependencies from the cache the install above filled.
      'export npm_config_offline=true',
      ...install,
      // The operator's edit: where the inventory is, and rehearsal on simulated hosts.
      `sed -i -e 's|^  url: .*|  url: file://${dir}/inventory.git|' -e 's|^transport: ssh|transport: sim|' /etc/groundcrew/groundcrew.yaml`,
      `chown -R groundcrew: ${dir}/inventory.git && chmod 0755 ${dir}`,
      ...start.flatMap((line) => (line.startsWith('systemctl') ? unitStart(unit, log) : [])),
      // Until the daemon answers (it reads the first revision first): its pid file is its runtime record.
      `for i in $(seq 600); do groundcrew status >/dev/null 2>&1 && break; sleep 0.2; done`,
      ...start.filter((line) => !line.startsWith('systemctl')),
      // An action, which needs the token the CLI found: the daemon's, in its state directory.
      'groundcrew reconcile',
      'ls /run/groundcrew',
      'kill %1; wait || true',
    ];
    let out = '';
    try {
      out = execFileSync('unshare', ['--mount', '--net', '--propagation', 'private', 'bash', '-c', script.join('\n')], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 300_000,
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      throw new Error(
        `the install steps failed:\n${e.stdout}\n${e.stderr}\ndaemon log:\n${existsSync(log) ? readFileSync(log, 'utf8').slice(-4000) : '(none)'}`,
      );
    }
    expect(out).toMatch(/win-compute-1/);
    expect(out).toMatch(/daemon-7070\.json/);
    expect(out).toMatch(/reconcil/i);
  }, 400_000);
});
