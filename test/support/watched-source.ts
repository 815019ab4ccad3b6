// A GitSource for the tests of the source against a real Git remote: it keeps every revision it hands on, looks
// once an hour on its own (the test triggers looks), waits long for its first clone (a loaded machine), and
// logs nothing unless the test gives it a logger. Any option can be given to override these.

import pino from 'pino';
import { GitSource, type GitSourceOptions } from '../../src/source/git-source.js';
import type { Revision } from '../../src/source/source.js';

type Given = Pick<GitSourceOptions, 'url' | 'checkout' | 'environment'> & Partial<GitSourceOptions>;

export function watchedSource(options: Given): { src: GitSource; revisions: Revision[] } {
  const revisions: Revision[] = [];
  const src = new GitSource({
    branch: 'main',
    path: '',
    pollMs: 3_600_000,
    // start() waits for the first clone: on a loaded machine that can take a while (the daemon's bound is 30 s).
    firstLookWaitMs: 100_000,
    log: pino({ level: 'silent' }),
    onRevision: async (r) => {
      revisions.push(r);
    },
    ...options,
  });
  return { src, revisions };
}
