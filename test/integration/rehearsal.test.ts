// Rehearsal (`transport: sim`, `groundcrew demo --repo`) of inventories as operators write them: the simulated world
// serves the registry each node names and the versions it pins, and stands in for a controller outside the inventory
// (KEYSTONE_AUTH_HOST, the config API), as it serves the controller's Keystone when a node of the inventory hosts it.
// Issue 29: a real inventory's own CONTAINER_REGISTRY stalled every Windows node at the vRouter ("lookup <registry>: no
// such host"), and a tag such as `ocata-5.0.0-134` was "manifest unknown". An unreachable registry is an option.

import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type SimDaemon, startSimDaemon } from '../support/sim-daemon.js';

// The repo's copies of shared/cad-examples (unmodified), so a fresh clone alone runs this.
const EXAMPLES = join(import.meta.dirname, '..', 'fixtures', 'cad-examples');
const dir = mkdtempSync(join(tmpdir(), 'gc-rehearsal-'));
const daemons: SimDaemon[] = [];
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
  rmSync(dir, { recursive: true, force: true });
});

/** A repo of one example instances.yaml, unchanged, and per-node files. */
function repo(name: string, example: string, nodes: Record<string, string>): string {
  const root = join(dir, name);
  mkdirSync(join(root, 'nodes'), { recursive: true });
  cpSync(join(EXAMPLES, example), join(root, 'instances.yaml'));
  for (const [node, text] of Object.entries(nodes)) writeFileSync(join(root, 'nodes', `${node}.yaml`), text);
  return root;
}

const WIN_NODE = 'versions:\n  contrail: "5.1.0-2044"\noverrides:\n  CONTAINER_REGISTRY: registry.lab.example:5000\n';

describe('rehearsal of real inventories', () => {
  it('bms_win_example.yaml with its own registry, a pinned build and an external controller: verified', async () => {
    const d = await startSimDaemon({}, undefined, repo('win', 'bms_win_example.yaml', { win_compute1: WIN_NODE }));
    daemons.push(d);
    await d.until('win_compute1 verified', () => d.daemon.status.get('win_compute1')?.state === 'verified', 180_000);
    const host = d.windows('win_compute1');
    expect(host.state.images).toContain('registry.lab.example:5000/contrail-windows-vrouter:5.1.0-2044');
  }, 240_000);

  it('bms_example.yaml (Linux, CONTRAIL_VERSION ocata-5.0.0-134): every node verified', async () => {
    const d = await startSimDaemon({}, undefined, repo('linux', 'bms_example.yaml', {}));
    daemons.push(d);
    await d.until(
      'every node verified',
      () => {
        const nodes = d.daemon.status.list();
        return nodes.length > 0 && nodes.every((n) => n.state === 'verified');
      },
      180_000,
    );
  }, 240_000);

  it('sim.unreachableRegistries makes a registry fail as a lookup does, and the node says so', async () => {
    const d = await startSimDaemon(
      { sim: { rebootSeconds: 0.05, latencyMs: 0, unreachableRegistries: ['registry.lab.example:5000'] } },
      undefined,
      repo('unreachable', 'bms_win_example.yaml', { win_compute1: WIN_NODE }),
    );
    daemons.push(d);
    await d.until(
      'win_compute1 failing on the pull',
      () => /no such host/.test(d.daemon.status.get('win_compute1')?.lastError?.message ?? ''),
      180_000,
    );
    expect(d.daemon.status.get('win_compute1')?.lastError?.message).toContain('registry.lab.example');
  }, 240_000);
});
