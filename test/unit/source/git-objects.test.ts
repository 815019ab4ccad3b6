// Git on the hot path without a process per read (issue 18), against real git: the long-lived cat-file reader,
// a commit's inventory read from the object database equal to what a checkout of it gives (refusals included),
// and the Git source handing on revisions read that way, with no working tree checked out.

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readInventoryFiles } from '../../../src/inventory/load-inventory.js';
import { GitInventoryReader } from '../../../src/source/git-inventory.js';
import { commitFields, GitObjects } from '../../../src/source/git-objects.js';
import { GitSource } from '../../../src/source/git-source.js';
import type { Revision } from '../../../src/source/source.js';
import { logSink } from '../../support/log-sink.js';
import { waitUntil } from '../../support/wait-until.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');
let dir: string;
let work: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@groundcrew.invalid', ...args], { cwd, encoding: 'utf8' }).trim();
const commit = (message: string) => {
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '--allow-empty', '-m', message);
  return git(work, 'rev-parse', 'HEAD');
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gc-git-objects-'));
  work = join(dir, 'work');
  mkdirSync(work);
  cpSync(EXAMPLE, join(work, 'deploy'), { recursive: true });
  git(work, 'init', '-q', '--initial-branch=main');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('GitObjects: one cat-file --batch process', () => {
  it('reads commits, trees and blobs, says when one is missing, and finds objects written after it started', async () => {
    const first = commit('first\n\nbody');
    const objects = new GitObjects(work);
    try {
      const c = await objects.read(first);
      expect(c?.type).toBe('commit');
      const fields = commitFields(c?.content ?? Buffer.alloc(0));
      expect(fields.subject).toBe(git(work, 'log', '-1', '--format=%s', first));
      expect(fields.tree).toBe(git(work, 'rev-parse', `${first}^{tree}`));
      expect(fields.author).toBe(git(work, 'log', '-1', '--format=%an <%ae>', first));
      // A committer in another zone: the time is printed in that zone, as %cI does.
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@groundcrew.invalid', 'commit', '-q', '--allow-empty', '-m', 'zoned'], {
        cwd: work,
        env: { ...process.env, GIT_COMMITTER_DATE: '2026-11-23T10:46:28+05:30', GIT_AUTHOR_NAME: 'Ann Operator' },
      });
      const zonedSha = git(work, 'rev-parse', 'HEAD');
      const zonedFields = commitFields((await objects.read(zonedSha))?.content ?? Buffer.alloc(0));
      expect(zonedFields.committedAt).toBe(git(work, 'log', '-1', '--format=%cI', zonedSha));
      expect(zonedFields.committedAt).toBe('2026-11-23T10:46:28+05:30');
      expect(zonedFields.author).toBe(git(work, 'log', '-1', '--format=%an <%ae>', zonedSha));
      git(work, 'reset', '-q', '--hard', first);
      const blob = await objects.read(`${first}:deploy/instances.yaml`);
      expect(blob?.content.toString()).toBe(git(work, 'show', `${first}:deploy/instances.yaml`).concat('\n'));
      expect(await objects.read('0'.repeat(40))).toBeUndefined();
      // Several at once come back in order.
      const [a, b] = await Promise.all([objects.read(`${first}:deploy/groundcrew.yaml`), objects.read(`${first}^{tree}`)]);
      expect([a?.type, b?.type]).toEqual(['blob', 'tree']);
      writeFileSync(join(work, 'deploy', 'nodes', 'compute-l1.yaml'), 'versions:\n  contrail: "5.0.2"\n');
      const second = commit('a subject that\nruns over two lines\n\nand a body');
      const later = await objects.read(second);
      expect(commitFields(later?.content ?? Buffer.alloc(0))).toMatchObject({
        parents: [first],
        subject: git(work, 'log', '-1', '--format=%s', second),
      });
    } finally {
      objects.close();
    }
  });
});

describe('GitInventoryReader: a commit inventory without a checkout', () => {
  it('reads what a checkout of each commit reads, refusals included', async () => {
    const steps: (() => void)[] = [
      () => undefined,
      () => writeFileSync(join(work, 'deploy', 'nodes', 'compute-l2.yaml'), 'paused: true\n'),
      () => symlinkSync('/etc/passwd', join(work, 'deploy', 'nodes', 'ctrl1.yaml')),
      () => rmSync(join(work, 'deploy', 'groundcrew.yaml')),
      () => {
        rmSync(join(work, 'deploy', 'nodes'), { recursive: true });
        writeFileSync(join(work, 'deploy', 'nodes'), 'not a folder\n');
      },
    ];
    const objects = new GitObjects(work);
    const tree = join(dir, 'tree');
    const reader = new GitInventoryReader(objects, 'deploy', join(tree, 'deploy'));
    try {
      for (const [i, step] of steps.entries()) {
        step();
        const sha = commit(`step ${i}`);
        if (i === 0) git(work, 'worktree', 'add', '-q', '--detach', tree, sha);
        else git(tree, 'checkout', '-q', '--detach', sha);
        const fromCheckout = (await readInventoryFiles(join(tree, 'deploy'), { repoRoot: tree })).files;
        expect(await reader.files(sha)).toEqual(fromCheckout);
      }
      // The inventory's folder itself a link: refused by name, as the working copy's reader does.
      rmSync(join(work, 'deploy'), { recursive: true });
      cpSync(EXAMPLE, join(work, 'real'), { recursive: true });
      symlinkSync('real', join(work, 'deploy'));
      const linked = commit('deploy is a link');
      await expect(reader.files(linked)).rejects.toThrow(
        'deploy: refused: a symbolic link; only regular files inside the inventory are read',
      );
    } finally {
      objects.close();
    }
  });
});

describe('GitSource: revisions from the object database', () => {
  it('hands on each new head with its files and subject, checks nothing out, and notes a force-push', async () => {
    const origin = join(dir, 'origin.git');
    git(dir, 'init', '-q', '--bare', '--initial-branch=main', origin);
    git(work, 'remote', 'add', 'origin', origin);
    rmSync(join(work, 'deploy'));
    cpSync(EXAMPLE, join(work, 'deploy'), { recursive: true });
    const base = commit('the example again');
    git(work, 'push', '-q', '-f', 'origin', 'main');
    const sink = logSink();
    const log = pino(sink.stream);
    const revisions: Revision[] = [];
    const checkout = join(dir, 'state', 'checkout');
    const source = new GitSource({
      url: origin,
      branch: 'main',
      path: 'deploy',
      checkout,
      pollMs: 3_600_000,
      environment: process.env,
      log,
      onRevision: async (r) => {
        revisions.push(r);
      },
    });
    await source.start();
    try {
      writeFileSync(join(work, 'deploy', 'nodes', 'compute-l1.yaml'), 'versions:\n  contrail: "5.0.9"\n');
      const bumped = commit('bump compute-l1');
      git(work, 'push', '-q', 'origin', 'main');
      await source.trigger('webhook');
      expect(revisions.map((r) => [r.sha, r.subject])).toEqual([
        [base, 'the example again'],
        [bumped, 'bump compute-l1'],
      ]);
      const files = await revisions[1]?.files?.();
      expect(files?.nodeFiles.find((f) => f.path === 'nodes/compute-l1.yaml')?.text).toBe('versions:\n  contrail: "5.0.9"\n');
      expect(existsSync(join(checkout, 'deploy', 'instances.yaml'))).toBe(false);
      // Nothing new: no revision.
      await source.trigger('poll');
      expect(revisions).toHaveLength(2);
      // A force-push back to the base and a new commit on it: followed, and said so.
      git(work, 'reset', '-q', '--hard', base);
      const rewritten = commit('rewritten history');
      git(work, 'push', '-q', '-f', 'origin', 'main');
      await source.trigger('webhook');
      expect(revisions.at(-1)?.sha).toBe(rewritten);
      const forcePushes = () => sink.records<{ msg: string }>().filter((l) => l.msg.includes('was force-pushed'));
      await waitUntil('the force-push logged', () => forcePushes().length > 0);
      expect(forcePushes()).toHaveLength(1);
    } finally {
      await source.stop();
    }
  });
});
