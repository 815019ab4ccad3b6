// `groundcrew run` as a process on a real Git remote of the example inventory, simulated nodes, no API
// token configured (the daemon makes its own), its runtime record in a directory of the test's own.

import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitIn } from './git.js';
import { waitUntil } from './wait-until.js';

const ROOT = join(import.meta.dirname, '..', '..');
export const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

export interface DaemonProcess {
  dir: string;
  url: string;
  stateDir: string;
  /** The work tree the commits are made in (pushed to the daemon's remote). */
  work: string;
  /** git in the work tree, with the options' environment. */
  git(...args: string[]): string;
  /** The environment of a user session on the daemon host (XDG_RUNTIME_DIR shared with the daemon). */
  env: NodeJS.ProcessEnv;
  /** Commits in the work tree with this message (any bytes) and pushes. */
  commit(message: string): string;
  cli(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }>;
  /** Everything the daemon wrote on stdout and stderr, every run of it. */
  output(): string;
  /** Whether the daemon process is still running. */
  running(): boolean;
  /** SIGTERM, then the same daemon started again on the same config and state (its URL may change). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface DaemonProcessOptions {
  /** Where the test's files go (a new temporary directory when not given). */
  dir?: string;
  /** More lines of the daemon config under `source:` (indented by two spaces), e.g. `verify:` settings. */
  source?: string[];
  pollInterval?: string;
  /** Environment for git (a GNUPGHOME of signing keys). */
  gitEnv?: NodeJS.ProcessEnv;
  /** git options before `commit` for the first commit (signing it). */
  firstCommit?: string[];
  /** The daemon's source.url, instead of the test's own origin (a Git server the test runs, or none). */
  url?: string;
  /** More environment for the daemon (a proxy). */
  env?: NodeJS.ProcessEnv;
}

export async function startDaemonProcess(options: DaemonProcessOptions = {}): Promise<DaemonProcess> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'gc-api-'));
  const origin = join(dir, 'origin.git');
  const work = join(dir, 'work');
  const git = gitIn(work, options.gitEnv);
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', origin]);
  cpSync(join(ROOT, 'inventory-repo-example'), work, { recursive: true });
  execFileSync('git', ['init', '-q', '--initial-branch=main'], { cwd: work });
  git('remote', 'add', 'origin', origin);
  git('add', '.');
  git(...(options.firstCommit ?? []), 'commit', '-qm', 'the example inventory', ...(options.firstCommit ? ['-S'] : []));
  git('push', '-q', 'origin', 'main');
  const config = join(dir, 'groundcrew.yaml');
  writeFileSync(
    config,
    [
      'source:',
      `  url: ${options.url ?? origin}`,
      `  pollInterval: ${options.pollInterval ?? '1s'}`,
      ...(options.source ?? []).map((line) => `  ${line}`),
      'stateDir: state',
      'listen: 127.0.0.1:0',
      'transport: sim',
      'sim: { rebootSeconds: 0.1, latencyMs: 0 }',
      'reboot: { timeout: 20s, settle: 50ms }',
      'resyncInterval: 1h',
      '',
    ].join('\n'),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env, XDG_RUNTIME_DIR: join(dir, 'run') };
  delete env.GROUNDCREW_RUNTIME_DIR;
  delete env.GROUNDCREW_API_TOKEN_FILE;
  delete env.GROUNDCREW_CONFIG;
  let stdout = '';
  const launch = async (): Promise<{ child: ChildProcess; url: string }> => {
    const from = stdout.length;
    const child = spawn(process.execPath, [BIN, 'run', '--config', config], { env, cwd: dir });
    child.stdout?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    const url = await waitUntil(
      () => `the daemon to start:\n${stdout.slice(from)}`,
      () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout.slice(from))?.[1] ?? (child.exitCode !== null && 'exited'),
      { timeoutMs: 30_000 },
    );
    if (url === 'exited') throw new Error(`the daemon exited (${child.exitCode}) before it listened:\n${stdout.slice(from)}`);
    return { child, url };
  };
  // SIGTERM, then SIGKILL past 30 s: these tests are not about shutdown (run.test and hostile-repo are). With
  // simulated hosts, process.exit waits for V8's background compile of the tree-sitter wasm (seen: 20-35 s on a
  // loaded machine; `node --liftoff-only` exits in 1.5 s), which held stop() past a hook's timeout.
  const terminate = async (child: ChildProcess) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const late = setTimeout(() => child.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(late);
  };
  let { child, url } = await launch();
  return {
    dir,
    get url() {
      return url;
    },
    stateDir: join(dir, 'state'),
    work,
    git,
    env,
    commit(message) {
      writeFileSync(join(dir, 'message'), message);
      git('commit', '-q', '--allow-empty', '-F', join(dir, 'message'));
      git('push', '-q', 'origin', 'main');
      return git('rev-parse', 'HEAD');
    },
    cli: (...args) =>
      new Promise((resolve) => {
        execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', env }, (err, out, errText) =>
          resolve({ status: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout: out, stderr: errText }),
        );
      }),
    output: () => stdout,
    running: () => child.exitCode === null && child.signalCode === null,
    async restart() {
      await terminate(child);
      ({ child, url } = await launch());
    },
    async stop() {
      await terminate(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
