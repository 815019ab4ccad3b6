// Cluster mode's node page and /api/nodes/:name over real HTTP (issue 19 item 4): for a node another member
// drives, the history and run reports come from the detail source (etcd, in the daemon), redacted like the
// rest; one that cannot be read is shown as unreadable, and the page still answers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historyCommand } from '../../../src/cli/client-commands.js';
import { DaemonSession } from '../../../src/cli/daemon-client.js';
import { type NodeDetail, type NodeDetailSource, StatusStore } from '../../../src/reconciler/status-store.js';
import { listenOnLoopback, statusServer } from '../../support/status-server.js';

const REV = 'c'.repeat(40);
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----';
const remote: NodeDetail = {
  history: [
    { seq: 1, at: '2026-11-23T10:00:00.000Z', state: 'converging', phase: 'vrouter', revision: REV },
    { seq: 2, at: '2026-11-23T10:01:00.000Z', state: 'rebooting', phase: 'vrouter', revision: REV, detail: 'reboot batch of member m1' },
  ],
  reports: [
    {
      node: 'far',
      revision: REV,
      corrective: false,
      startedAt: '2026-11-23T10:00:00.000Z',
      phases: [
        {
          phase: 'vrouter',
          commands: 2,
          durationMs: 30,
          at: '2026-11-23T10:00:30.000Z',
          resources: [
            {
              resource: 'vrouter/agent-conf',
              status: 'failed',
              before: { inDesiredState: false, differingProperties: ['content'] },
              rebootRequested: false,
              error: { code: 'GC_SET_FAILED', message: KEY, retryable: false },
              durationMs: 9,
            },
          ],
        },
      ],
    },
  ],
};

const status = new StatusStore();
const asked: string[] = [];
const source: NodeDetailSource = async (name) => {
  asked.push(name);
  if (name === 'far') return structuredClone(remote);
  if (name === 'garbled') return { unreadable: 'history.0.state: expected string' };
  if (name === 'cut-off') throw new Error('detail read: no answer from etcd within 500 ms');
  return undefined;
};
const server = statusServer(status, { detail: source });
let url = '';

beforeAll(async () => {
  for (const name of ['far', 'garbled', 'cut-off']) status.update(name, { name, state: 'rebooting' }, undefined, { remote: true });
  status.update('near', { name: 'near', state: 'converging' }, 'started here');
  url = await listenOnLoopback(server);
});
afterAll(() => server.close());

describe('node detail from another member', () => {
  it("/api/nodes/:name of a node driven elsewhere has its owner's history and reports, redacted", async () => {
    const body = await (await fetch(`${url}/api/nodes/far`)).json();
    expect(body.state).toBe('rebooting');
    expect(body.history).toEqual(remote.history);
    expect(body.reports).toHaveLength(1);
    expect(body.reports[0].phases[0].resources[0].error.message).toBe('[redacted]');
    expect(body.detailUnreadable).toBeUndefined();
  });

  it("the node page shows the owner's timeline and last report; the private key never reaches the HTML", async () => {
    for (const path of ['/nodes/far', '/fragments/nodes/far']) {
      const html = await (await fetch(`${url}${path}`)).text();
      expect(html, path).toContain('reboot batch of member m1');
      expect(html, path).toContain('vrouter/agent-conf');
      expect(html, path).not.toContain('PRIVATE KEY');
    }
  });

  it('a node this process keeps itself: its own records, as before', async () => {
    const body = await (await fetch(`${url}/api/nodes/near`)).json();
    expect(body.history.map((t: { detail?: string }) => t.detail)).toEqual(['started here']);
    expect(asked).toContain('near');
  });

  it('unreadable or not read: said on the page and in the API, which still answer', async () => {
    for (const [name, reason] of [
      ['garbled', 'history.0.state: expected string'],
      ['cut-off', 'not read from etcd: detail read: no answer from etcd within 500 ms'],
    ]) {
      const api = await fetch(`${url}/api/nodes/${name}`);
      expect(api.status).toBe(200);
      const body = await api.json();
      expect(body).toMatchObject({ name, state: 'rebooting', history: [], reports: [], detailUnreadable: reason });
      const page = await fetch(`${url}/nodes/${name}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(`history unreadable: ${reason}`);
      expect(html).toContain(`run reports unreadable: ${reason}`);
    }
  });

  // No token and no record: the CLI reads the test's server as it would another host's daemon.
  const client = () => ({ url, session: new DaemonSession(url, undefined, undefined) });

  it("groundcrew history: the owner's transitions for a node driven elsewhere; an unreadable record is an error", async () => {
    const lines: string[] = [];
    const errors: string[] = [];
    const io = { out: (t: string) => lines.push(t), err: (t: string) => errors.push(t) };
    expect(await historyCommand('far', client(), io)).toBe(0);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/rebooting +vrouter +cccccccccccc +reboot batch of member m1$/);
    expect(await historyCommand('garbled', client(), io)).toBe(1);
    expect(errors).toEqual(['garbled: history unreadable: history.0.state: expected string']);
  });
});
