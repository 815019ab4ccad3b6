// What `groundcrew --help`, `completion` and `version` load: only the command tree, never the daemon. Checked by
// the modules Node resolves (a resolve hook records each), not by time: `eval "$(groundcrew completion bash)"` runs
// in every new shell, and loading the daemon made it take over a second (issue 29).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'gc-cli-startup-'));
let runs = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The URLs of every module resolved while the CLI ran with `args`, and what it printed. */
function loaded(args: string[]): { urls: string[]; stdout: string } {
  const log = join(dir, `modules-${++runs}.txt`);
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');
  return result;
}
`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  writeFileSync(log, '');
  const stdout = execFileSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], { encoding: 'utf8' });
  return { urls: readFileSync(log, 'utf8').split('\n').filter(Boolean), stdout };
}

/** What only `run` and `demo` need. */
const HEAVY = [
  /node_modules\/(fastify|xstate|etcd3|web-tree-sitter|pino|simple-git|node-ssh|koffi|yaml|zod)\//,
  /\/dist\/src\/(sim|reconciler|server|cluster|roles)\//,
  /\/cli\/daemon\.js$/,
];

describe('the CLI starts light', () => {
  for (const args of [['--help'], ['completion', 'bash'], ['completion', 'fish'], ['version']]) {
    it(`groundcrew ${args.join(' ')} loads no daemon module`, () => {
      const { urls, stdout } = loaded(args);
      expect(stdout.length).toBeGreaterThan(0);
      // The hook saw the CLI itself: an empty log would pass the check below without proving anything.
      expect(urls.some((u) => u.endsWith('/dist/src/cli/main.js'))).toBe(true);
      expect(urls.filter((u) => HEAVY.some((re) => re.test(u)))).toEqual([]);
    });
  }

  it('groundcrew run --help does not start loading the daemon either, but `plan` does load the inventory', () => {
    expect(loaded(['run', '--help']).urls.filter((u) => HEAVY.some((re) => re.test(u)))).toEqual([]);
    const plan = loaded(['plan', join(import.meta.dirname, '..', '..', 'inventory-repo-example')]);
    expect(plan.urls.some((u) => /node_modules\/yaml\//.test(u))).toBe(true);
  });

  it('--version and version name the package version and the commit', () => {
    const version = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')).version as string;
    expect(loaded(['--version']).stdout.trim()).toBe(version);
    const info = JSON.parse(loaded(['version', '--json']).stdout) as { version: string; commit: string; node: string };
    expect(info.version).toBe(version);
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: join(import.meta.dirname, '..', '..'), encoding: 'utf8' }).trim();
    expect(info.commit).toBe(head);
    expect(info.node).toBe(process.version);
  });
});
