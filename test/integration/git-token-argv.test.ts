// A token in source.url never reaches a command line: a local user reads every process's arguments
// (/proc/PID/cmdline is world-readable), so git must be given the URL without it. A real smart-HTTP server
// (`git http-backend`) that answers only to `deploy:TOKEN` (HTTP Basic) serves the inventory; the Git source clones
// and fetches from it while a separate process, running as `nobody`, reads the command line of every process about
// every millisecond. The server holds each request until that watcher has seen the git-remote-http process making
// it, so the watcher has looked at the clone's and the fetch's processes while they ran, however loaded the
// machine. It must never see the token; as `nobody` it cannot read those processes' environments either
// (/proc/PID/environ is mode 0400: EACCES), where git's credential helper finds it.

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn, pushComment } from '../support/git.js';
import { type GitHttpServer, startGitHttpServer } from '../support/git-http-server.js';
import { logSink } from '../support/log-sink.js';
import { type ProcessWatch, running, watchProcesses } from '../support/process-watch.js';
import { waitUntil } from '../support/wait-until.js';
import { watchedSource } from '../support/watched-source.js';

const TOKEN = `tok${randomBytes(12).toString('hex')}`;
const WRONG = `bad${randomBytes(12).toString('hex')}`;

let dir: string;
let work: string;
let served: string;
let home: string;
let server: GitHttpServer;
let watch: ProcessWatch;
/** `127.0.0.1:PORT` of the server: in the command line of every git process that reaches it. */
let host: string;

/** The git-remote-http processes of this server the watcher saw. */
const remoteHelpers = () => watch.seen.filter((s) => /\bgit-remote-https?\b/.test(s.cmd) && s.cmd.includes(host));

function source(name: string, password: string) {
  const log = logSink();
  const watched = watchedSource({
    url: `http://deploy:${password}@${host}/repo.git`,
    checkout: join(dir, name, 'checkout'),
    environment: { PATH: process.env.PATH, HOME: home },
    log: pino({ level: 'debug' }, log.stream),
  });
  return { ...watched, log };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-token-argv-'));
  served = join(dir, 'served');
  mkdirSync(served);
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', join(served, 'repo.git')]);
  work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--initial-branch=main', work]);
  gitIn(work)('remote', 'add', 'origin', join(served, 'repo.git'));
  pushComment(work, 'first');
  // The daemon user's git config has a helper that stores every credential git approves (in ~/.git-credentials):
  // git must never hand it the token.
  home = join(dir, 'home');
  mkdirSync(home);
  writeFileSync(join(home, '.gitconfig'), '[credential]\n\thelper = store\n');
  watch = await watchProcesses([TOKEN, WRONG]);
  server = await startGitHttpServer(served, {
    auth: { user: 'deploy', password: TOKEN },
    hold: (request) =>
      waitUntil(
        () => `the process watcher to see the git-remote-http making ${request.method} ${request.url} (seen: ${remoteHelpers().length})`,
        () => remoteHelpers().some((s) => running(s.pid)),
        { timeoutMs: 60_000, intervalMs: 5 },
      ).then(() => undefined),
  });
  host = new URL(server.base).host;
});

afterAll(async () => {
  watch?.stop();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a token in an https source URL', { timeout: 180_000 }, () => {
  it('clones and fetches with it, and no process has it in its arguments', async () => {
    const { src, revisions, log } = source('good', TOKEN);
    const first = gitIn(work)('rev-parse', 'HEAD');
    await src.start();
    try {
      expect(src.stalled()).toBeUndefined();
      expect(revisions.map((r) => r.sha)).toEqual([first]);
      const second = pushComment(work, 'second');
      await src.trigger('poll');
      expect(src.stalled()).toBeUndefined();
      expect(revisions.map((r) => r.sha)).toEqual([first, second]);
    } finally {
      await src.stop();
    }
    // The server was given the token (and answered nothing without it).
    expect(server.requests.filter((r) => r.basic === `deploy:${TOKEN}`).length).toBeGreaterThanOrEqual(4);
    // The watcher saw the clone, its git-remote-http, and the fetch's (a process of its own): what it would have
    // read the token in.
    const seen = watch.seen.map((s) => s.cmd);
    expect(seen.filter((cmd) => / clone /.test(cmd) && cmd.includes(host)).length).toBeGreaterThan(0);
    expect(seen.filter((cmd) => / fetch .* origin \+refs\/heads\/main:/.test(cmd)).length).toBeGreaterThan(0);
    expect(new Set(remoteHelpers().map((s) => s.pid)).size).toBeGreaterThanOrEqual(2);
    expect(watch.leaks).toEqual([]);
    for (const sighting of remoteHelpers())
      expect(sighting.cmd).toMatch(new RegExp(`^(\\S*/)?git-remote-http origin http://${host}/repo\\.git$`));
    // Where the token is, in the environment of git and its helper, a local user cannot read (the watcher is `nobody`).
    if (watch.uid !== process.getuid?.()) {
      const ours = watch.seen.filter((s) => s.cmd.includes(host));
      expect(ours.length).toBeGreaterThan(0);
      for (const sighting of ours) expect(sighting, sighting.cmd).toMatchObject({ environ: 'EACCES' });
    }
    // Nor is it written anywhere: not in the clone's config, not by the daemon user's credential helper, not in the log.
    expect(readFileSync(join(dir, 'good', 'checkout', '.git', 'config'), 'utf8')).toContain(`url = http://${host}/repo.git\n`);
    expect(readFileSync(join(dir, 'good', 'checkout', '.git', 'config'), 'utf8')).not.toContain(TOKEN);
    expect(existsSync(join(home, '.git-credentials'))).toBe(false);
    expect(log.text()).toContain('new head');
    expect(log.text()).not.toContain(TOKEN);
  });

  it('takes the token out of the config of a clone an earlier version made, and fetches with it', async () => {
    // As an earlier version left it: the URL with the token in .git/config (written as a file here, since a
    // `git config` or `git clone` with it would put the token on a command line).
    const checkout = join(dir, 'earlier', 'checkout');
    execFileSync('git', ['clone', '-q', '--no-checkout', join(served, 'repo.git'), checkout]);
    const config = join(checkout, '.git', 'config');
    const before = readFileSync(config, 'utf8');
    writeFileSync(config, before.replace(`url = ${join(served, 'repo.git')}`, `url = http://deploy:${TOKEN}@${host}/repo.git`));
    expect(readFileSync(config, 'utf8')).toContain(TOKEN);
    const third = pushComment(work, 'third');
    const { src, revisions } = source('earlier', TOKEN);
    await src.start();
    try {
      expect(src.stalled()).toBeUndefined();
      expect(revisions.map((r) => r.sha)).toEqual([third]);
    } finally {
      await src.stop();
    }
    expect(readFileSync(config, 'utf8')).not.toContain(TOKEN);
    expect(watch.leaks).toEqual([]);
  });

  it('says in one line, without the token, that the server refused a wrong one', async () => {
    const { src, revisions, log } = source('wrong', WRONG);
    const refusedBefore = server.requests.filter((r) => r.basic === `deploy:${WRONG}`).length;
    await src.start();
    try {
      expect(revisions).toEqual([]);
      const stalled = src.stalled() ?? '';
      expect(stalled).toMatch(
        new RegExp(`^cloning main of http://\\*\\*\\*@${host}/repo\\.git failed: .*Authentication failed for 'http://${host}/repo\\.git/'`),
      );
      expect(stalled).not.toContain('\n');
      expect(stalled).not.toContain(WRONG);
    } finally {
      await src.stop();
    }
    // It was sent, and refused: not a request that went out without it.
    expect(server.requests.filter((r) => r.basic === `deploy:${WRONG}`).length).toBeGreaterThan(refusedBefore);
    expect(log.text()).toMatch(/Authentication failed/);
    expect(log.text()).not.toContain(WRONG);
    expect(watch.leaks).toEqual([]);
  });
});
