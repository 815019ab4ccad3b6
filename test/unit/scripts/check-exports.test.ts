// The unused-export check (knip.jsonc with scripts/check-exports.ts, run by `npm run lint`), on a small tree
// made for the test with the repo's own knip.jsonc: a name only a test imports, a type nothing imports, an
// export of the CLI's entry file and a file no program reaches are listed one a line and fail the check; a
// name a program imports, one its own module uses, and one the lab (a package.json script under test/)
// imports pass.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const made: string[] = [];

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gc-exports-'));
  made.push(root);
  copyFileSync(join(ROOT, 'knip.jsonc'), join(root, 'knip.jsonc'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(root: string): { status: number | null; lines: string[] } {
  const knip = join(ROOT, 'node_modules', '.bin', 'knip');
  const run = spawnSync(knip, ['--no-progress', '--directory', root, '--reporter', join(ROOT, 'scripts', 'check-exports.ts')], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, lines: `${run.stdout}${run.stderr}`.split('\n').filter((l) => l !== '') };
}

const PACKAGE = JSON.stringify({
  name: 'planted',
  type: 'module',
  bin: { planted: 'src/main.ts' },
  scripts: { lab: 'tsx test/lab/lab-cli.ts' },
});

afterAll(() => {
  for (const root of made) rmSync(root, { recursive: true, force: true });
});

describe('check-exports', () => {
  it('lists each name nothing but tests use, and a file no program reaches, and fails', () => {
    const root = tree({
      'package.json': PACKAGE,
      'src/main.ts': "import { used } from './lib.js';\n\nexport const fromMain = used();\n",
      'src/lib.ts': [
        'export type Unread = { a: number };',
        'export function used(): number {',
        '  return ownUse() + 1;',
        '}',
        'export function ownUse(): number {',
        '  return 1;',
        '}',
        'export function testsOnly(): number {',
        '  return 2;',
        '}',
        'export function labOnly(): number {',
        '  return 3;',
        '}',
        '',
      ].join('\n'),
      'src/orphan.ts': 'export const orphan = 1;\n',
      'test/lib.test.ts': "import { testsOnly } from '../src/lib.js';\n\ntestsOnly();\n",
      'test/lab/lab-cli.ts': "import { labOnly } from '../../src/lib.js';\n\nlabOnly();\n",
    });
    expect(check(root)).toEqual({
      status: 1,
      lines: [
        'src/lib.ts: Unread',
        'src/lib.ts: testsOnly',
        'src/main.ts: fromMain',
        'src/orphan.ts: (the whole file)',
        'check-exports: 4 exported name(s) nothing but tests use (the rule: scripts/check-exports.ts)',
      ],
    });
  });

  it('passes, saying nothing, when every export is used outside tests', () => {
    const root = tree({
      'package.json': PACKAGE,
      'src/main.ts':
        "import type { Unread } from './lib.js';\nimport { used } from './lib.js';\n\nconst u: Unread = { a: used() };\nconsole.log(u);\n",
      'src/lib.ts': 'export type Unread = { a: number };\nexport function used(): number {\n  return 1;\n}\n',
    });
    expect(check(root)).toEqual({ status: 0, lines: [] });
  });
});
