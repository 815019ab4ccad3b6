// The fetch started ahead (issue 18, webhook latency), against real git: it fetches when asked and only then,
// and says what git said when the fetch fails.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpareFetch } from '../../../src/source/spare-fetch.js';

let dir: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@groundcrew.invalid', ...args], { cwd, encoding: 'utf8' }).trim();
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', GIT_TERMINAL_PROMPT: '0' };
const ARGS = ['fetch', '--no-tags', 'origin', '+refs/heads/main:refs/remotes/origin/main'];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gc-spare-fetch-'));
  git(dir, 'init', '-q', '--bare', '--initial-branch=main', 'origin.git');
  git(dir, 'init', '-q', '--initial-branch=main', 'work');
  git(join(dir, 'work'), 'commit', '-q', '--allow-empty', '-m', 'one');
  git(join(dir, 'work'), 'push', '-q', join(dir, 'origin.git'), 'main');
  git(dir, 'clone', '-q', '--no-checkout', join(dir, 'origin.git'), 'clone');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SpareFetch', () => {
  it('fetches only when run, each time anew', async () => {
    const clone = join(dir, 'clone');
    const fetch = new SpareFetch(clone, ARGS, env);
    fetch.prepare();
    const two = (git(join(dir, 'work'), 'commit', '-q', '--allow-empty', '-m', 'two'), git(join(dir, 'work'), 'rev-parse', 'HEAD'));
    git(join(dir, 'work'), 'push', '-q', join(dir, 'origin.git'), 'main');
    await sleep(200);
    // The spare waits: nothing fetched yet.
    expect(git(clone, 'rev-parse', 'refs/remotes/origin/main')).not.toBe(two);
    await fetch.run();
    expect(git(clone, 'rev-parse', 'refs/remotes/origin/main')).toBe(two);
    git(join(dir, 'work'), 'commit', '-q', '--allow-empty', '-m', 'three');
    git(join(dir, 'work'), 'push', '-q', join(dir, 'origin.git'), 'main');
    await fetch.run();
    expect(git(clone, 'rev-parse', 'refs/remotes/origin/main')).toBe(git(join(dir, 'work'), 'rev-parse', 'HEAD'));
    fetch.close();
    await expect(fetch.run()).rejects.toThrow(/closed/);
  });

  it("rejects with git's own words each time the fetch fails (a spare follows a failed one)", async () => {
    const clone = join(dir, 'clone');
    const failing = new SpareFetch(clone, ['fetch', 'no-such-remote'], env);
    await expect(failing.run()).rejects.toThrow(/no-such-remote/);
    await expect(failing.run()).rejects.toThrow(/no-such-remote/);
    failing.close();
  });
});
