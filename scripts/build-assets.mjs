// The part of `npm run build` that is not TypeScript: the simulator's grammars copied into dist/grammars (so the
// package ships two .wasm files, not the grammars' npm packages with their native builds), and dist/build-info.json
// (the commit this was built from, for `groundcrew version` and groundcrew_build_info once installed).

import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
const require = createRequire(join(root, 'package.json'));

mkdirSync(join(dist, 'grammars'), { recursive: true });
for (const grammar of ['tree-sitter-powershell', 'tree-sitter-bash'])
  copyFileSync(require.resolve(`${grammar}/${grammar}.wasm`), join(dist, 'grammars', `${grammar}.wasm`));

let commit;
try {
  const [top, head] = execFileSync('git', ['rev-parse', '--show-toplevel', 'HEAD'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  })
    .trim()
    .split('\n');
  if (top === root) commit = head;
} catch {
  // not a checkout: the version alone says what this is
}
const info = join(dist, 'build-info.json');
if (commit) writeFileSync(info, `${JSON.stringify({ commit })}\n`);
else rmSync(info, { force: true });
