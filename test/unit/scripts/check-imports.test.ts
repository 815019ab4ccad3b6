// The import rules (scripts/check-imports.ts, run by `npm run lint`): today's tree keeps them, and a file
// that breaks one fails with its file and line, on a small src/ tree made for each case.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkImports } from '../../../scripts/check-imports.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gc-imports-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const messages = (root: string) => checkImports(root).map((v) => v.message);

describe('check-imports', () => {
  it('the real tree keeps every rule', () => {
    expect(messages(ROOT)).toEqual([]);
  });

  it('the simulator may not import the inventory, even for a type', () => {
    const root = tree({
      'src/inventory/x.ts': 'export interface X {\n  a: number;\n}\n',
      'src/sim/host.ts': "// a simulated host\n\nimport type { X } from '../inventory/x.js';\n\nexport const x: X = { a: 1 };\n",
    });
    expect(messages(root)).toEqual([
      'src/sim/host.ts:3: sim may not import inventory (rule: the simulator stands in for hosts: it knows nothing of groundcrew)',
    ]);
  });

  it('the dataplane may not import the reconciler; only sim-executor.ts may import the simulator', () => {
    const root = tree({
      'src/reconciler/y.ts': 'export const y = 1;\n',
      'src/sim/host.ts': 'export class Host {}\n',
      'src/dataplane/ssh-executor.ts':
        "import {\n  y,\n} from '../reconciler/y.js';\nimport { Host } from '../sim/host.js';\n\nexport const z = [y, Host];\n",
      'src/dataplane/sim-executor.ts': "import { Host } from '../sim/host.js';\n\nexport const h = Host;\n",
    });
    expect(messages(root)).toEqual([
      'src/dataplane/ssh-executor.ts:1: dataplane may not import reconciler (rule: node access is a leaf: the rest of groundcrew builds on it)',
      'src/dataplane/ssh-executor.ts:4: dataplane may not import sim (rule: node access is a leaf: the rest of groundcrew builds on it)',
    ]);
  });

  it('koffi is loaded only under dataplane/native/', () => {
    const root = tree({
      'src/dataplane/native/library.ts': "import koffi from 'koffi';\n\nexport const k = koffi;\n",
      'src/dataplane/ssh-executor.ts': "// ssh\nconst k = await import('koffi');\n\nexport { k };\n",
      'src/cli/main.ts': "export type Koffi = typeof import('koffi');\n",
    });
    expect(messages(root)).toEqual([
      'src/cli/main.ts:1: cli may not import koffi (rule: native libraries are loaded in one place, and only on the OS they exist on)',
      'src/dataplane/ssh-executor.ts:2: dataplane may not import koffi (rule: native libraries are loaded in one place, and only on the OS they exist on)',
    ]);
  });

  it('roles take types, not code, from the inventory and the dataplane; export-from counts as an import', () => {
    const root = tree({
      'src/inventory/spec.ts': 'export interface Spec {\n  name: string;\n}\nexport const load = () => undefined;\n',
      'src/dataplane/executor.ts': 'export interface Executor {\n  run(): void;\n}\n',
      'src/dataplane/quote.ts': 'export const bashQuote = (v: string) => v;\n',
      'src/dataplane/ssh-executor.ts': 'export class SshExecutor {}\n',
      'src/roles/phase.ts': [
        "import type { Executor } from '../dataplane/executor.js';",
        "import { bashQuote } from '../dataplane/quote.js';",
        "import type { Spec } from '../inventory/spec.js';",
        "import { load } from '../inventory/spec.js';",
        "export { SshExecutor } from '../dataplane/ssh-executor.js';",
        'export const all = [bashQuote, load] as const;',
        'export type Both = [Executor, Spec];',
        '',
      ].join('\n'),
    });
    expect(messages(root)).toEqual([
      expect.stringMatching(/^src\/roles\/phase\.ts:4: roles may not import inventory \(rule: roles build commands/),
      expect.stringMatching(/^src\/roles\/phase\.ts:5: roles may not import dataplane \(rule: roles build commands/),
    ]);
  });

  it('a folder no rule covers fails until it gets a row', () => {
    const root = tree({
      'src/errors.ts': 'export class E {}\n',
      'src/metrics/x.ts': "import { E } from '../errors.js';\n\nexport const e = E;\n",
    });
    expect(messages(root)).toEqual([
      'src/metrics/x.ts:1: metrics may not import ../errors.js (rule: no row of RULES in scripts/check-imports.ts covers metrics/: add one)',
    ]);
  });
});
