// `groundcrew demo --repo` on inventories whose Windows nodes name other adapters than the simulator's old two
// (issue 37): the rehearsal's hosts are built from the inventory, so every node converges. Before, a node whose
// WINDOWS_PHYSICAL_INTERFACE was Ethernet2 passed prereqs and the vRouter MSIs, then waited 120 s in the driver phase
// for "an address on Ethernet2 (DHCP)" on an adapter its host did not have, and halted the rollout.

import type { ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemo } from '../support/demo-process.js';
import { waitUntil } from '../support/wait-until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'gc-demo-adapters-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGINT');
  await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((resolve) => c.once('exit', resolve)) : undefined)));
  rmSync(dir, { recursive: true, force: true });
});

/** A copy of the example inventory repo, changed by `edit` (file -> new text from the old). */
function repo(name: string, edit: Record<string, (text: string) => string>): string {
  const at = join(dir, name);
  cpSync(join(ROOT, 'inventory-repo-example'), at, { recursive: true });
  for (const [file, change] of Object.entries(edit)) {
    const path = join(at, file);
    const before = existsSync(path) ? readFileSync(path, 'utf8') : '';
    const after = change(before);
    expect(after, `${file} changed`).not.toBe(before);
    writeFileSync(path, after);
  }
  return at;
}

interface NodeRow {
  name: string;
  state: string;
  lastError?: { code: string; message: string };
}

/** Runs the demo on `at` until every node is verified (or the demo ends); the nodes as the API shows them. */
async function demoUntilVerified(at: string, count: number): Promise<{ nodes: NodeRow[]; stdout: string }> {
  const demo = startDemo(['--repo', at, '--port', '0', '--reboot-seconds', '0.2']);
  const { child } = demo;
  children.push(child);
  await waitUntil(
    () => `${count} of ${count} nodes verified, or the demo to end:\n${demo.stdout().split('\n').slice(-20).join('\n')}\n${demo.stderr()}`,
    () => demo.stdout().includes(`${count} of ${count} nodes verified`) || child.exitCode !== null,
    // The example's six nodes took over 60 s with the suite on two busy cores (inventory-commands.test.ts).
    { timeoutMs: 200_000 },
  );
  const url = /status page: +(http:\/\/127\.0\.0\.1:\d+)\//.exec(demo.stdout())?.[1] as string;
  const nodes = (await (await fetch(`${url}/api/nodes`)).json()) as NodeRow[];
  child.kill('SIGINT');
  expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(0);
  expect(demo.stderr()).toBe('');
  return { nodes, stdout: demo.stdout() };
}

const states = (nodes: NodeRow[]) => Object.fromEntries(nodes.map((n) => [n.name, n.state]));
const EVERY_NODE_VERIFIED = Object.fromEntries(
  ['ctrl1', 'compute-l1', 'compute-l2', 'win-compute-1', 'win-compute-2', 'win-compute-3'].map((n) => [n, 'verified']),
);

describe('groundcrew demo --repo with the adapters an inventory names', () => {
  it('every Windows node on Ethernet2 (WINDOWS_PHYSICAL_INTERFACE for the whole inventory): every node verified', async () => {
    const at = repo('ethernet2', {
      'instances.yaml': (t) => t.replace('WINDOWS_PHYSICAL_INTERFACE: Ethernet1', 'WINDOWS_PHYSICAL_INTERFACE: Ethernet2'),
    });
    const { nodes, stdout } = await demoUntilVerified(at, 6);
    expect(stdout).not.toContain('GC_ADAPTER_MISSING');
    expect(states(nodes)).toEqual(EVERY_NODE_VERIFIED);
  }, 300_000);

  it('a third NIC: one node on "Ethernet 3" by its own contrail_configuration, one with its overlay on Ethernet2', async () => {
    const at = repo('third-nic', {
      // c-a-d's per-instance override of the data adapter, on the node whose host has three adapters.
      'instances.yaml': (t) =>
        t.replace(
          '    ip: 192.0.2.31\n',
          '    ip: 192.0.2.31\n    contrail_configuration:\n      WINDOWS_PHYSICAL_INTERFACE: "Ethernet 3"\n',
        ),
      // Management on Ethernet0, the vRouter on Ethernet1, the node's pod subnet on a third adapter.
      'nodes/win-compute-2.yaml': (t) => `${t}labels:\n  per_host_subnet: 10.42.2.0/24\noverlay_interface: Ethernet2\n`,
    });
    const { nodes, stdout } = await demoUntilVerified(at, 6);
    expect(stdout).not.toContain('GC_ADAPTER_MISSING');
    expect(states(nodes)).toEqual(EVERY_NODE_VERIFIED);
    // The third adapter is used: win-compute-2's overlay phase ran (its transparent network binds Ethernet2).
    expect(stdout).toMatch(/win-compute-2 +converging +overlay/);
  }, 300_000);
});
