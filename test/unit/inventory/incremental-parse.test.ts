// Incremental revisions (issue 18): over a sequence of real commits, parsing each with the memo the daemon keeps
// gives exactly what a cold parse gives, and a commit that changes one node file leaves every other node the
// same object (so the reconciler does not look at it); changes to repo-wide files reach every node they feed.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DesiredState } from '../../../src/inventory/desired-state.js';
import { loadInventory } from '../../../src/inventory/load-inventory.js';
import type { InventoryResult } from '../../../src/inventory/parse-inventory.js';
import { ParseMemo } from '../../../src/inventory/parse-memo.js';
import { parseSecretsFile, withSecrets } from '../../../src/inventory/secrets-file.js';
import { sharedInputs } from '../../../src/reconciler/cross-node.js';
import { touched } from '../../../src/reconciler/role-input.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');

let dir: string;
let work: string;
let tree: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@groundcrew.invalid', ...args], { cwd, encoding: 'utf8' }).trim();

/** Each step edits the working copy and commits; the test then reads every commit from a checkout of its own. */
const STEPS: [string, () => void][] = [
  ['the example', () => undefined],
  ['bump compute-l1', () => writeFileSync(join(work, 'nodes', 'compute-l1.yaml'), 'versions:\n  contrail: "5.0.2"\n')],
  ['pause win-compute-2', () => writeFileSync(join(work, 'nodes', 'win-compute-2.yaml'), 'versions:\n  contrail: "5.0.1"\npaused: true\n')],
  [
    'compute-l2 gets a node file with an overlay subnet',
    () => writeFileSync(join(work, 'nodes', 'compute-l2.yaml'), 'labels:\n  per_host_subnet: 10.200.2.0/24\n'),
  ],
  ['groundcrew.yaml: a new default docker', () => edit('groundcrew.yaml', 'docker: "18.09"', 'docker: "19.03"')],
  ['instances.yaml: a new Linux compute', () => edit('instances.yaml', '  win-compute-1:\n', NEW_NODE)],
  ['delete the node file of win-compute-3', () => unlinkSync(join(work, 'nodes', 'win-compute-3.yaml'))],
  ['a node file for a node that does not exist (rejected)', () => writeFileSync(join(work, 'nodes', 'ghost.yaml'), 'paused: true\n')],
  ['the ghost removed again', () => unlinkSync(join(work, 'nodes', 'ghost.yaml'))],
  ['instances.yaml: compute-l3 removed', () => edit('instances.yaml', NEW_NODE, '  win-compute-1:\n')],
  ['groundcrew.yaml deleted', () => unlinkSync(join(work, 'groundcrew.yaml'))],
  ['bump compute-l1 again', () => writeFileSync(join(work, 'nodes', 'compute-l1.yaml'), 'versions:\n  contrail: "5.0.3"\n')],
];
const NEW_NODE = '  compute-l3:\n    provider: bms\n    ip: 192.0.2.23\n    roles:\n      vrouter:\n\n  win-compute-1:\n';

function edit(file: string, from: string, to: string): void {
  const path = join(work, file);
  const text = execFileSync('cat', [path], { encoding: 'utf8' });
  if (!text.includes(from)) throw new Error(`${file} holds no ${JSON.stringify(from)}`);
  writeFileSync(path, text.replace(from, to));
}

const shas: string[] = [];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gc-incremental-'));
  work = join(dir, 'work');
  tree = join(dir, 'tree');
  cpSync(EXAMPLE, work, { recursive: true });
  git(work, 'init', '-q', '--initial-branch=main');
  for (const [subject, change] of STEPS) {
    change();
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '--allow-empty', '-m', subject);
    shas.push(git(work, 'rev-parse', 'HEAD'));
  }
  git(work, 'worktree', 'add', '-q', '--detach', tree, shas[0] as string);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function at(sha: string, memo?: ParseMemo): Promise<InventoryResult> {
  git(tree, 'checkout', '-q', '--detach', sha);
  return (await loadInventory(tree, memo ? { memo } : {})).result;
}

function state(result: InventoryResult): DesiredState {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.state;
}

describe('an inventory parsed with the memo, commit after commit', () => {
  it('equals the cold parse of every commit, accepted or rejected', async () => {
    const memo = new ParseMemo();
    const verdicts: boolean[] = [];
    for (const sha of shas) {
      const warm = await at(sha, memo);
      const cold = await at(sha);
      expect(warm).toEqual(cold);
      verdicts.push(warm.ok);
    }
    // The sequence holds one rejected commit, and the parses after it are still right.
    expect(verdicts).toEqual(STEPS.map(([subject]) => !subject.includes('rejected')));
  });

  it('keeps every node a one-node commit does not touch, and re-derives the nodes a repo-wide file feeds', async () => {
    const memo = new ParseMemo();
    const revisions: DesiredState[] = [];
    for (const sha of shas) {
      const result = await at(sha, memo);
      if (result.ok) revisions.push(result.state);
    }
    const changed = (a: DesiredState, b: DesiredState) =>
      b.nodes.filter((n) => a.nodes.find((o) => o.name === n.name) !== n).map((n) => n.name);
    const [example, bumped, paused, labelled, docker, added, deleted] = revisions as DesiredState[];
    expect(changed(example as DesiredState, bumped as DesiredState)).toEqual(['compute-l1']);
    expect(changed(bumped as DesiredState, paused as DesiredState)).toEqual(['win-compute-2']);
    expect(changed(paused as DesiredState, labelled as DesiredState)).toEqual(['compute-l2']);
    // The docker default is read by every node: all are derived again.
    expect(changed(labelled as DesiredState, docker as DesiredState)).toHaveLength(docker?.nodes.length ?? -1);
    expect(changed(docker as DesiredState, added as DesiredState)).toHaveLength(added?.nodes.length ?? -1);
    expect(changed(added as DesiredState, deleted as DesiredState)).toEqual(['win-compute-3']);
  });
});

describe('which nodes a revision touches (what the reconciler syncs)', () => {
  const inputs = (s: DesiredState) => ({ specs: new Map(s.nodes.map((n) => [n.name, n])), shared: sharedInputs(s) });

  it('only the node whose file changed, and every node when an input they share changes', async () => {
    const memo = new ParseMemo();
    const example = state(await at(shas[0] as string, memo));
    const bumped = state(await at(shas[1] as string, memo));
    const names = example.nodes.map((n) => n.name);
    expect(names.filter((n) => touched(n, inputs(example), inputs(bumped)))).toEqual(['compute-l1']);
    // compute-l2's new overlay subnet is a route on every other labelled node: shared, so all are looked at.
    const paused = state(await at(shas[2] as string, memo));
    const labelled = state(await at(shas[3] as string, memo));
    expect(names.filter((n) => touched(n, inputs(paused), inputs(labelled)))).toEqual(names);
    // A node the revision no longer names is touched (it is removed).
    expect(touched('compute-l3', inputs(labelled), { specs: new Map(), shared: sharedInputs(labelled) })).toBe(true);
  });

  it('keeps nodes with the same secrets the same objects, and changes all of them when a secret changes', async () => {
    const memo = new ParseMemo();
    const one = parseSecretsFile('secrets.yaml', 'KEYSTONE_AUTH_ADMIN_PASSWORD: s3cret\n').values;
    const before = withSecrets(state(await at(shas[0] as string, memo)), one);
    const after = withSecrets(state(await at(shas[1] as string, memo)), one);
    expect(before.nodes.filter((n, i) => after.nodes[i] !== n).map((n) => n.name)).toEqual(['compute-l1']);
    const rotated = withSecrets(state(await at(shas[1] as string, memo)), parseSecretsFile('secrets.yaml', 'X: y\n').values);
    expect(rotated.nodes.filter((n, i) => after.nodes[i] === n)).toEqual([]);
  });
});
