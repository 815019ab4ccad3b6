// `groundcrew plan` and `plan --json` print, byte for byte, what they printed before the plan moved into roles/
// (test/fixtures/plan-golden was written by the binary of commit ca121b1, before that change).

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

const INVENTORIES = [
  'inventory-repo-example',
  'test/fixtures/cad-examples/bms_example.yaml',
  'test/fixtures/cad-examples/bms_win_example.yaml',
  'test/fixtures/cad-examples/bms_win_full_example.yaml',
  'test/fixtures/cad-examples/bms_win_no_openstack_example.yaml',
  'test/fixtures/cad-examples/bms_with_qos_example.yaml',
  'test/fixtures/plan-inputs/overlay-k8s',
];

const golden = (inventory: string, ext: string) =>
  readFileSync(
    join(
      ROOT,
      'test/fixtures/plan-golden',
      `${inventory
        .split('/')
        .at(-1)
        ?.replace(/\.yaml$/, '')}.${ext}`,
    ),
    'utf8',
  );

describe('groundcrew plan output is stable', () => {
  for (const inventory of INVENTORIES) {
    it(`${inventory}: --json and text, byte for byte`, () => {
      const json = spawnSync(process.execPath, [BIN, 'plan', '--json', inventory], { cwd: ROOT, encoding: 'utf8' });
      expect(json.status, json.stderr).toBe(0);
      expect(json.stdout).toBe(golden(inventory, 'json'));
      const text = spawnSync(process.execPath, [BIN, 'plan', inventory], { cwd: ROOT, encoding: 'utf8' });
      expect(text.stdout).toBe(golden(inventory, 'txt'));
    });
  }
});
