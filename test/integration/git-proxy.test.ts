// The Git source through a site's HTTP proxy: real git over smart HTTP (`git http-backend` on loopback)
// through a real tinyproxy. The proxy's log and the Via header it adds show each request went through it;
// `no_proxy` sends git direct; GIT_DIR and GIT_CONFIG_* in the daemon's environment never reach git. Over
// HTTPS (a certificate of a private CA, made by openssl): through the proxy's CONNECT, trusted by GIT_SSL_CAINFO.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitIn, pushComment } from '../support/git.js';
import { type GitHttpServer, startGitHttpServer } from '../support/git-http-server.js';
import { startTinyproxy, type Tinyproxy } from '../support/tinyproxy.js';
import { watchedSource } from '../support/watched-source.js';

let dir: string;
let work: string;
let http: GitHttpServer;
let https: GitHttpServer;
let proxy: Tinyproxy;
let caFile: string;

const source = (name: string, environment: NodeJS.ProcessEnv, server = http) =>
  watchedSource({ url: `${server.base}/repo.git`, checkout: join(dir, name, 'checkout'), environment });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gc-git-proxy-'));
  const served = join(dir, 'served');
  mkdirSync(served);
  execFileSync('git', ['init', '-q', '--bare', '--initial-branch=main', join(served, 'repo.git')]);
  work = join(dir, 'work');
  execFileSync('git', ['init', '-q', '--initial-branch=main', work]);
  gitIn(work)('remote', 'add', 'origin', join(served, 'repo.git'));
  pushComment(work, 'first');
  http = await startGitHttpServer(served);
  // A self-signed certificate for 127.0.0.1 stands for a site's private CA: git trusts it only through GIT_SSL_CAINFO.
  caFile = join(dir, 'ca.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
      ...['-keyout', key, '-out', caFile, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  https = await startGitHttpServer(served, { key: readFileSync(key, 'utf8'), cert: readFileSync(caFile, 'utf8') });
  // The HTTPS server listens on a port of its own, not 443: CONNECT to any port.
  proxy = await startTinyproxy(join(dir, 'proxy'), { connectPorts: 'any' });
});

afterAll(async () => {
  await proxy?.stop();
  await http?.close();
  await https?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the Git source behind an HTTP proxy', { timeout: 120_000 }, () => {
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
      const second = pushComment(work, 'second');
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

  it('clones over HTTPS through the proxy (CONNECT, HTTPS_PROXY) with the CA of GIT_SSL_CAINFO', async () => {
    const connect = `CONNECT 127.0.0.1:${new URL(https.base).port} `;
    const tunnels = () => proxy.requests().filter((line) => line.startsWith(connect)).length;
    const trusted = source('https', { PATH: process.env.PATH, HOME: dir, HTTPS_PROXY: proxy.url, GIT_SSL_CAINFO: caFile }, https);
    await trusted.src.start();
    try {
      expect(trusted.src.stalled()).toBeUndefined();
      expect(trusted.revisions).toHaveLength(1);
      expect(tunnels()).toBeGreaterThan(0);
    } finally {
      await trusted.src.stop();
    }
    // Without the CA the same server is refused: the clone above trusted it through GIT_SSL_CAINFO, nothing else.
    const untrusted = source('https-no-ca', { PATH: process.env.PATH, HOME: dir, HTTPS_PROXY: proxy.url }, https);
    await untrusted.src.start();
    try {
      expect(untrusted.revisions).toEqual([]);
      expect(untrusted.src.stalled()).toMatch(/certificate/i);
    } finally {
      await untrusted.src.stop();
    }
  });
});
