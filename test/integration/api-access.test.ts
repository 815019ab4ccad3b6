// The API against a page in the operator's browser and a rebound DNS name: `groundcrew run` as a process
// with no token configured makes its own, refuses a cross-origin POST, a foreign Host and a tokenless
// /api/plan, while the CLI on the same host finds the token unasked; a commit subject full of terminal
// escapes prints inert.

import { statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { waitUntil } from '../support/wait-until.js';

let daemon: DaemonProcess;
interface NodeJson {
  name: string;
  state: string;
  desiredRevision?: string;
  lastAppliedRevision?: string;
  history: unknown[];
}

const nodes = async () => (await (await fetch(`${daemon.url}/api/nodes`)).json()) as NodeJson[];
const node = async (name: string) => (await (await fetch(`${daemon.url}/api/nodes/${name}`)).json()) as NodeJson;
const settled = (ns: NodeJson[]) =>
  ns.length === 6 && ns.every((n) => n.state === 'verified' && n.lastAppliedRevision === n.desiredRevision);

/** A raw request with any Host header (fetch does not let a caller choose it). */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string }> {
  const url = new URL(daemon.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => {
        body += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  daemon = await startDaemonProcess();
  await waitUntil('the first convergence', async () => settled(await nodes()), { timeoutMs: 30_000 });
}, 60_000);
afterAll(() => daemon?.stop());

describe('API access', () => {
  it('made a random token file, 0600, in the state directory', () => {
    const file = join(daemon.stateDir, 'api-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a cross-origin text/plain POST /api/reconcile, and nothing is reconciled', async () => {
    const before = new Map((await Promise.all((await nodes()).map((n) => node(n.name)))).map((n) => [n.name, n.history.length]));
    const forged = await fetch(`${daemon.url}/api/reconcile`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'text/plain', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(forged.status).toBe(403);
    // Even carrying a stolen token, a page of another origin may not act.
    const token = (await import('node:fs')).readFileSync(join(daemon.stateDir, 'api-token'), 'utf8').trim();
    const withToken = await fetch(`${daemon.url}/api/reconcile`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json', origin: 'http://evil.example', authorization: `Bearer ${token}` },
    });
    expect(withToken.status).toBe(403);
    // A real reconcile of one node, to its end: a refused "all nodes" one would have started the others by then.
    const ok = await daemon.cli('reconcile', 'ctrl1', '--url', daemon.url);
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trim()).toBe('reconciling 1 node: ctrl1');
    await waitUntil(
      'ctrl1 reconciled',
      async () => {
        const n = await node('ctrl1');
        return n.history.length > (before.get('ctrl1') ?? 0) && n.state === 'verified';
      },
      { timeoutMs: 30_000 },
    );
    for (const n of await nodes()) if (n.name !== 'ctrl1') expect((await node(n.name)).history.length, n.name).toBe(before.get(n.name));
  });

  it('refuses a foreign Host header (DNS rebinding) on pages and API alike; its own names pass', async () => {
    const port = new URL(daemon.url).port;
    for (const path of ['/', '/api/nodes', '/api/revisions']) {
      const foreign = await raw(path, { host: `evil.example:${port}` });
      expect(foreign.status, path).toBe(421);
      expect(foreign.body).not.toContain('win-compute-1');
    }
    expect((await raw('/api/nodes', { host: `localhost:${port}` })).status).toBe(200);
    expect((await raw('/api/nodes', { host: `127.0.0.1:${port}` })).status).toBe(200);
  });

  it('/api/plan wants the token; with it, it plans', async () => {
    const anonymous = await fetch(`${daemon.url}/api/plan`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: string }).error).toMatch(/^a bearer token is required/);
    // A wrong token is told as wrong, not as missing (issue 39).
    const wrong = await fetch(`${daemon.url}/api/plan`, { headers: { authorization: 'Bearer not-this-daemons' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(((await wrong.json()) as { error: string }).error).toMatch(/^the bearer token is not this daemon's/);
    const plan = await daemon.cli('plan', '--url', daemon.url);
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toContain('ctrl1: in its desired state, nothing would run');
  });

  it('answers with the security headers, and serves the script instead of inlining it', async () => {
    for (const path of ['/', '/nodes/ctrl1', '/app.js', '/api/nodes']) {
      const res = await fetch(`${daemon.url}${path}`);
      expect(res.status, path).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    const page = await (await fetch(`${daemon.url}/`)).text();
    expect(page).toContain('<script type="module" src="/app.js"></script>');
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toContain('<style');
  });

  it('shows terminal escapes of a commit subject inert in `groundcrew status`', async () => {
    const sha = daemon.commit('\x1b]0;pwned\x07\x1b[2J\x9b31mred\u202eevil');
    const revisions = async () => (await (await fetch(`${daemon.url}/api/revisions`)).json()) as { sha: string; accepted: boolean }[];
    await waitUntil(
      'the commit',
      async () => {
        const rs = await revisions();
        return rs[0]?.sha === sha && rs[0].accepted;
      },
      { timeoutMs: 30_000 },
    );
    const status = await daemon.cli('status', '--url', daemon.url);
    expect(status.status).toBe(0);
    expect(status.stdout).not.toContain('\x1b');
    expect(status.stdout).not.toContain('\x07');
    expect(status.stdout).not.toContain('\x9b');
    expect(status.stdout).not.toContain('\u202e');
    expect(status.stdout).toContain(`revision ${sha.slice(0, 12)}  \\x1b]0;pwned\\x07\\x1b[2J\\x9b31mred\\u202eevil`);
  });
});
