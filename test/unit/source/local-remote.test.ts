// A remote that is a path on this machine, read in place (issue 18: no process started on a webhook's path),
// against real git: each push is seen at once, hostile refs are refused, and GitSource hands on the pushed
// commit's files without fetching, leaving the clone to be fetched at the next poll.

import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitSource } from '../../../src/source/git-source.js';
import { LocalRemote, localGitDir } from '../../../src/source/local-remote.js';
import type { Revision } from '../../../src/source/source.js';
import { gitIn } from '../../support/git.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', '..', 'inventory-repo-example');
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', GIT_TERMINAL_PROMPT: '0' };

let dir: string;
let origin: string;
let work: string;
let git: ReturnType<typeof gitIn>;
const push = (message: string): string => {
  git('commit', '-q', '--allow-empty', '-m', message);
  git('push', '-q', 'origin', 'main');
  return git('rev-parse', 'HEAD');
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gc-local-remote-'));
  origin = join(dir, 'origin.git');
  work = join(dir, 'work');
  gitIn(dir)('init', '-q', '--bare', '--initial-branch=main', origin);
  cpSync(EXAMPLE, work, { recursive: true });
  git = gitIn(work);
  git('init', '-q', '--initial-branch=main');
  git('remote', 'add', 'origin', origin);
  git('add', '.');
  git('commit', '-qm', 'example');
  git('push', '-q', 'origin', 'main');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('localGitDir', () => {
  it('finds a bare repository, a working copy and a file:// URL; anything else is left to git fetch', () => {
    expect(localGitDir(origin)).toBe(origin);
    expect(localGitDir(work)).toBe(join(work, '.git'));
    expect(localGitDir(pathToFileURL(origin).href)).toBe(origin);
    expect(localGitDir('origin.git')).toBeUndefined();
    expect(localGitDir('ssh://git@example.invalid/repo.git')).toBeUndefined();
    expect(localGitDir('git@example.invalid:repo.git')).toBeUndefined();
    expect(localGitDir(join(work, 'nodes'))).toBeUndefined();
    expect(localGitDir(join(dir, 'nothing-here'))).toBeUndefined();
  });
});

describe('LocalRemote', () => {
  it('sees each push at once, loose or packed, with one process for all of them', async () => {
    const remote = new LocalRemote(origin, env);
    try {
      expect(await remote.head('main')).toBe(git('rev-parse', 'HEAD'));
      const two = push('two');
      expect(await remote.head('main')).toBe(two);
      gitIn(origin)('pack-refs', '--all', '--prune');
      const three = push('three');
      expect(await remote.head('main')).toBe(three);
      gitIn(origin)('pack-refs', '--all', '--prune');
      expect(await remote.head('main')).toBe(three);
    } finally {
      remote.close();
    }
  });

  it('refuses what is not a branch pointing at a commit, and names that are not one object name', async () => {
    const remote = new LocalRemote(origin, env);
    try {
      // git itself refuses to point a branch at anything but a commit; a remote's files can say anything.
      writeFileSync(join(origin, 'refs', 'heads', 'blob'), `${git('rev-parse', 'HEAD:instances.yaml')}\n`);
      writeFileSync(join(origin, 'refs', 'heads', 'tree'), `${git('rev-parse', 'HEAD^{tree}')}\n`);
      expect(await remote.head('blob')).toBeUndefined();
      expect(await remote.head('tree')).toBeUndefined();
      expect(await remote.head('no-such-branch')).toBeUndefined();
      // Never sent: one would be read as another name (`main^{tree}`, a path), or as two lines.
      for (const name of ['main\nmain', 'main^{tree}', 'main:instances.yaml', '../main', 'a..b', 'main ']) {
        expect(await remote.head(name)).toBeUndefined();
      }
      expect(await remote.head('main')).toBe(git('rev-parse', 'HEAD'));
    } finally {
      remote.close();
    }
  });
});

describe('GitSource on a local remote', () => {
  function source(readLocalRemote: boolean) {
    const lines: { msg?: string; read?: string; fetchMs?: number }[] = [];
    const revisions: Revision[] = [];
    const checkout = join(dir, `state-${readLocalRemote}`, 'checkout');
    const src = new GitSource({
      url: origin,
      branch: 'main',
      path: '',
      checkout,
      pollMs: 3_600_000,
      environment: process.env,
      readLocalRemote,
      log: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) }),
      onRevision: async (r) => {
        revisions.push(r);
      },
    });
    const cloned = () => gitIn(checkout)('rev-parse', 'refs/remotes/origin/main');
    return { src, lines, revisions, cloned };
  }

  it('hands on a pushed commit and its files without a fetch; the clone follows at the next poll', async () => {
    const { src, lines, revisions, cloned } = source(true);
    await src.start();
    try {
      const before = cloned();
      writeFileSync(join(work, 'nodes', 'compute-l1.yaml'), '# pushed in place\nversions:\n  contrail: "5.0.1"\n');
      git('commit', '-qam', 'compute-l1 to 5.0.1');
      git('push', '-q', 'origin', 'main');
      const pushed = git('rev-parse', 'HEAD');
      await src.trigger('webhook generic');
      expect(src.head).toBe(pushed);
      const revision = revisions.at(-1);
      expect(revision).toMatchObject({ sha: pushed, subject: 'compute-l1 to 5.0.1', trigger: 'webhook generic' });
      const files = await revision?.files?.();
      expect(files?.nodeFiles.find((f) => f.path === 'nodes/compute-l1.yaml')?.text).toContain('# pushed in place');
      expect(lines.filter((l) => l.msg === 'new head').at(-1)).toMatchObject({ read: 'local remote', fetchMs: 0 });
      // Nothing fetched on the webhook's path.
      expect(cloned()).toBe(before);
      await src.trigger('poll');
      expect(cloned()).toBe(pushed);
      expect(revisions).toHaveLength(2);
    } finally {
      await src.stop();
    }
  });

  it('without readLocalRemote, fetches as before', async () => {
    const { src, lines, cloned } = source(false);
    await src.start();
    try {
      const pushed = push('fetched');
      await src.trigger('webhook generic');
      expect(src.head).toBe(pushed);
      expect(cloned()).toBe(pushed);
      expect(lines.filter((l) => l.msg === 'new head').at(-1)).toMatchObject({ read: 'fetch' });
    } finally {
      await src.stop();
    }
  });
});
