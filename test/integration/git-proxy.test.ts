// The Git source through a site's HTTP proxy: real git over smart HTTP (`git http-backend` on loopback)
// through a real tinyproxy. The proxy's log and the Via header it adds show each request went through it;
// `no_proxy` sends git direct; GIT_DIR and GIT_CONFIG_* in the daemon's environment never reach git.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitSource } from '../../src/source/git-source.js';
import type { Revision } from '../../src/source/source.js';
import { gitIn } from '../support/git.js';
import { type GitHttpServer, startGitHttpServer } from '../support/git-http-server.js';
import { startTinyproxy, type Tinyproxy } from '../support/tinyproxy.js';

let dir: string;
let work: string;
let http: GitHttpServer;
let proxy: Tinyproxy;

function commit(message: string): string {
  const git = gitIn(work);
  writeFileSync(join(work, 'instances.yaml'), `# ${message}\n`);
  git('add', '.');
  git('commit', '-qm', message);
  git('push', '-q', 'origin', 'main');
  return git('rev-parse', 'HEAD');
}

function source(name: string, environment: NodeJS.ProcessEnv) {
  const revisions: Revision[] = [];
  const src = new GitSource({
    url: `${http.base}/repo.git`,
    branch: 'main',
    path: '',
    checkout: join(dir, name, 'checkout'),
    pollMs: 3_600_000,
    environment,
    log: pino({ level: 'silent' }),
    onRevision: async (r) => {
      revisions.push(r);
    },
  });
  return { src, revisions };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-git-proxy-'));
  const served = join(dir, 'served');
  mkdirSync(served);
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', join(served, 'repo.git')]);
  work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--initial-branch=main', work]);
  gitIn(work)('remote', 'add', 'origin', join(served, 'repo.git'));
  commit('first');
  http = await startGitHttpServer(served);
  proxy = await startTinyproxy(join(dir, 'proxy'));
});

afterAll(async () => {
  await proxy?.stop();
  await http?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Git source behind an HTTP proxy', () => {
  it('clones and fetches through http_proxy, and ignores GIT_DIR and GIT_CONFIG_* of its environment', async () => {
    const { src, revisions } = source('proxied', {
      PATH: process.env.PATH,
      HOME: dir,
      http_proxy: proxy.url,
      // Either would break the fetch if it reached git: another repository, a proxy that is not there.
      GIT_DIR: join(dir, 'not-a-repo'),
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.proxy',
      GIT_CONFIG_VALUE_0: 'http://127.0.0.1:9',
    });
    const first = gitIn(work)('rev-parse', 'HEAD');
    const refs = `GET ${http.base}/repo.git/info/refs?service=git-upload-pack`;
    const proxied = () => proxy.requests().filter((line) => line.startsWith(refs)).length;
    await src.start();
    try {
      expect(src.stalled()).toBeUndefined();
      expect(revisions.map((r) => r.sha)).toEqual([first]);
      const cloned = proxied();
      expect(cloned).toBeGreaterThan(0);
      const second = commit('second');
      await src.trigger('poll');
      expect(revisions.map((r) => r.sha)).toEqual([first, second]);
      // The fetch went through the proxy too; and the server saw the proxy's Via header on every request.
      expect(proxied()).toBeGreaterThan(cloned);
      expect(http.requests.length).toBeGreaterThanOrEqual(4);
      expect(http.requests.filter((r) => !r.via?.includes('tinyproxy'))).toEqual([]);
    } finally {
      await src.stop();
    }
  });

  it('goes direct to a host no_proxy names', async () => {
    const { src, revisions } = source('direct', { PATH: process.env.PATH, HOME: dir, http_proxy: proxy.url, no_proxy: '127.0.0.1' });
    const seen = http.requests.length;
    const logged = proxy.requests().length;
    await src.start();
    try {
      expect(revisions).toHaveLength(1);
      expect(http.requests.length).toBeGreaterThan(seen);
      expect(http.requests.slice(seen).filter((r) => r.via)).toEqual([]);
      expect(proxy.requests().length).toBe(logged);
    } finally {
      await src.stop();
    }
  });
});
