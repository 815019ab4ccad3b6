// source.branch is checked as Git checks a branch name: each verdict compared with the real
// `git check-ref-format --branch` on the same name.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { branchNameProblem } from '../../../src/source/branch-name.js';

const gitAccepts = (name: string) => spawnSync('git', ['check-ref-format', '--branch', name], { cwd: '/' }).status === 0;

const NAMES = [
  ...['main', 'feature/x', 'release-1.2', 'v1.0/rc', 'ünïcode', 'a@b', '@a', 'a.lock.b', 'a-b_c'],
  ...['a b', 'x..y', '-x', '--upload-pack=touch /tmp/x', '../../x', 'a@{b', 'a/', '/a', 'a//b', 'a.', '.a', 'a/.b'],
  ...['x.lock', 'a/b.lock/c', 'a:b', 'refs/heads/a:refs/heads/b', 'a~1', 'a^', 'a?', 'a*', 'a[', 'a\\b', 'a\tb', 'a\nb', 'HEAD', ''],
];

describe('branchNameProblem', () => {
  it('agrees with git check-ref-format --branch', () => {
    for (const name of NAMES)
      expect({ name, accepted: branchNameProblem(name) === undefined }).toEqual({ name, accepted: gitAccepts(name) });
  });

  it('refuses "@", which git takes as HEAD rather than a branch of that name', () => {
    expect(branchNameProblem('@')).toMatch(/current commit/);
  });
});
