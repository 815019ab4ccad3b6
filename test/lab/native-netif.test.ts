// The interface probe (if_nametoindex + SIOCGIFFLAGS through koffi) on real interfaces in a namespace.

import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sh } from './netns.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const NS = `gcnetif${process.pid % 10000}`;

beforeAll(async () => {
  await sh('ip', ['netns', 'del', NS]).catch(() => undefined);
  await sh('ip', ['netns', 'add', NS]);
  // "dummy" links are not in every kernel; an empty bridge is a real interface everywhere.
  await sh('ip', ['-n', NS, '-batch', '-'], 'link add vhost0 type bridge\nlink set vhost0 up\nlink add pkt0 type bridge\n');
});
afterAll(async () => {
  await sh('ip', ['netns', 'del', NS]).catch(() => undefined);
});

async function probe(names: string[]): Promise<unknown[]> {
  const script = `import('${join(ROOT, 'dist/src/dataplane/native/netif.js')}').then(m => console.log(JSON.stringify(${JSON.stringify(names)}.map(n => m.probeInterface(n)))))`;
  const { stdout } = await run('ip', ['netns', 'exec', NS, process.execPath, '-e', script]);
  return JSON.parse(stdout);
}

describe('probeInterface', () => {
  it('tells present and up, present and down, and absent apart', async () => {
    const [vhost0, pkt0, missing, lo] = (await probe(['vhost0', 'pkt0', 'vif0', 'lo'])) as Record<string, unknown>[];
    expect(vhost0).toMatchObject({ name: 'vhost0', exists: true, up: true });
    expect(pkt0).toMatchObject({ name: 'pkt0', exists: true, up: false });
    expect(missing).toEqual({ name: 'vif0', exists: false, index: 0, up: false, running: false });
    expect(lo).toMatchObject({ exists: true, up: false, index: 1 });
  });
});
