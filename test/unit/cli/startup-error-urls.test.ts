// A startup error goes to stderr, so to the journal: the credentials of a URL in it are masked.

import { expect, it } from 'vitest';
import { startupError } from '../../../src/cli/startup-error.js';
import { errors } from '../../../src/errors.js';

it("masks a URL's credentials in the one line it prints", () => {
  const plain = startupError(new Error('cannot clone https://deploy:tok-7@git.example/r.git\nat somewhere'));
  expect(plain).toBe('cannot clone https://***@git.example/r.git');
  const coded = startupError(errors.GC_GIT_FETCH('cannot fetch http://u:tok-8@proxy:3128', new Error('x')));
  expect(coded).not.toContain('tok-8');
  expect(coded).toContain('http://***@proxy:3128');
});
