// The server-rendered pages over real HTTP on loopback: rows in the HTML for curl, the query in the links,
// bad queries refused, and what a page renders redacted by the inventory's secret rules as JSON is.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusStore } from '../../../src/reconciler/status-store.js';
import { listenOnLoopback, statusServer } from '../../support/status-server.js';

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
const status = new StatusStore();
const server = statusServer(status, {
  rollout: (sha) => ({ halted: sha === 'b'.repeat(40), reason: 'halted: leaky failed on it', failed: ['leaky'] }),
});
let url = '';

beforeAll(async () => {
  status.recordRevision({ sha: 'b'.repeat(40), accepted: true, subject: 'a <b>bold</b> subject' });
  for (let i = 0; i < 150; i++)
    status.update(`n${String(i).padStart(3, '0')}`, { name: `n${String(i).padStart(3, '0')}`, state: 'verified' });
  status.update('leaky', {
    name: 'leaky',
    state: 'stalled',
    desiredRevision: 'b'.repeat(40),
    lastError: { code: 'GC_SET_FAILED', message: KEY },
  });
  url = await listenOnLoopback(server);
});
afterAll(() => server.close());

describe('server-rendered pages', () => {
  it('the status page has its first 100 rows, the counts as filter links, and a next page link', async () => {
    const html = await (await fetch(`${url}/`)).text();
    expect(html.match(/<tr data-node=/g)).toHaveLength(100);
    expect(html).toContain('<a data-nav href="/?state=stalled" class="count stuck-count" data-count="stalled"><b>1</b> stalled</a>');
    expect(html).toMatch(/<a data-nav rel="next" href="\/\?cursor=[\w-]+">next 100 →<\/a>/);
    expect(html).toContain('a &#60;b&#62;bold&#60;/b&#62; subject');
    expect((await fetch(`${url}/?limit=5000`)).status).toBe(400);
  });

  it('the node page is whole in the HTML: the machine lit at its state, the problem, the timeline linked to revisions', async () => {
    const html = await (await fetch(`${url}/nodes/leaky`)).text();
    expect(html).toContain('<div class="state lit stuck-state" data-state="stalled">stalled</div>');
    expect(html).toContain('<div class="problem"><code>GC_SET_FAILED</code> [redacted]');
    expect(html).toContain(`<a href="/revisions/${'b'.repeat(40)}"><code>bbbbbbbbbbbb</code></a>`);
    expect(html).toContain('data-fragment="/fragments/nodes/leaky"');
    expect((await fetch(`${url}/nodes/nope`)).status).toBe(404);
  });

  it('redacts what the pages render as the JSON API does: a private key in an error never reaches the HTML', async () => {
    for (const path of [
      '/?state=stalled',
      `/revisions/${'b'.repeat(40)}`,
      `/fragments/revisions/${'b'.repeat(40)}`,
      '/fragments/overview?q=leaky',
    ]) {
      const body = await (await fetch(`${url}${path}`)).text();
      expect(body, path).toContain('leaky');
      expect(body, path).not.toContain('PRIVATE KEY');
      expect(body, path).toContain('[redacted]');
    }
  });
});
