// What `groundcrew --help`, `completion` and `version` load: only the command tree, never the daemon. Checked by
// the modules Node resolves (a resolve hook records each), not by time: `eval "$(groundcrew completion bash)"` runs
// in every new shell, and loading the daemon made it take over a second (issue 29).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEAVY, loadedModules } from '../support/loaded-modules.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-cli-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const loaded = (args: string[]) => loadedModules(dir, args);

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
