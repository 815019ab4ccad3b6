// The source's outage record: backoff doubling up to its cap, news only when the error changes, and git's
// stderr (from the real git, failing to clone from closed ports) on one line without its progress and advice.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitProblem, SourceOutage } from '../../../src/source/source-outage.js';

describe('SourceOutage', () => {
  it('doubles the wait after each failure, up to 5 minutes, and is back to the poll interval once fetched', () => {
    const outage = new SourceOutage();
    expect(outage.delayMs(60_000)).toBe(60_000);
    const waits = [1, 2, 3, 4, 5].map(() => {
      outage.failed('fetching main failed: x');
      return outage.delayMs(60_000);
    });
    expect(waits).toEqual([60_000, 120_000, 240_000, 300_000, 300_000]);
    expect(outage.recovered()).toBe(true);
    expect(outage.delayMs(60_000)).toBe(60_000);
    expect(outage.recovered()).toBe(false);
  });

  it('never waits less than the poll interval, even past the cap', () => {
    const outage = new SourceOutage();
    outage.failed('x');
    outage.failed('x');
    expect(outage.delayMs(600_000)).toBe(600_000);
  });

  it('is news at the first failure and when the error changes, not at each retry; keeps when it began', () => {
    const outage = new SourceOutage();
    expect(outage.failed('a', 1000)).toBe(true);
    expect(outage.failed('a', 2000)).toBe(false);
    expect(outage.failed('b', 3000)).toBe(true);
    expect(outage.failure).toEqual({ message: 'b', since: 1000, attempts: 3 });
  });
});

describe('gitProblem', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gc-git-problem-'));
  const clone = (url: string) =>
    spawnSync('git', ['clone', url, join(dir, 'clone')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: dir, GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: 'ssh -o BatchMode=yes' },
    }).stderr;

  it("keeps git's own words from a real failed clone, without progress or advice", () => {
    try {
      expect(gitProblem(clone('https://127.0.0.1:1/repo.git'))).toMatch(
        /^fatal: unable to access 'https:\/\/127\.0\.0\.1:1\/repo\.git\/': Failed to connect to 127\.0\.0\.1 port 1 .*$/,
      );
      expect(gitProblem(clone('ssh://127.0.0.1:1/repo.git'))).toBe(
        'ssh: connect to host 127.0.0.1 port 1: Connection refused fatal: Could not read from remote repository.',
      );
      expect(gitProblem('')).toBe('git said nothing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
