// Which modules a CLI run loads: Node's resolve hook (registered with --import) appends the URL of each module it
// resolves to a file. Checked by the modules, not by time: a test of what a command loads cannot flake under load.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const BIN = join(import.meta.dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

let runs = 0;

/** The URLs of every module resolved while the CLI ran with `args` (its files in `dir`), and what it printed. */
export function loadedModules(dir: string, args: string[], env: NodeJS.ProcessEnv = process.env): { urls: string[]; stdout: string } {
  const log = join(dir, `modules-${++runs}.txt`);
  const hooks = join(dir, `hooks-${runs}.mjs`);
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
  const register = join(dir, `register-${runs}.mjs`);
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  writeFileSync(log, '');
  const stdout = execFileSync(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], { encoding: 'utf8', env });
  return { urls: readFileSync(log, 'utf8').split('\n').filter(Boolean), stdout };
}

/** What only `run` and `demo` need (and `plan`, `validate`: the inventory and the config parsers). */
export const HEAVY = [
  /node_modules\/(fastify|xstate|etcd3|web-tree-sitter|pino|simple-git|node-ssh|koffi|yaml|zod)\//,
  /\/dist\/src\/(sim|reconciler|server|cluster|roles|inventory)\//,
  /\/cli\/(daemon|daemon-config)\.js$/,
];
