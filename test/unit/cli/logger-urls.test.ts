// The root logger masks the credentials of any URL in a line, wherever it sits: a message, an error's message
// and stack, a field.

import { expect, it } from 'vitest';
import { rootLogger } from '../../../src/cli/logger.js';
import { logSink } from '../../support/log-sink.js';

it("masks a URL's credentials in messages, errors and fields", () => {
  const sink = logSink();
  const log = rootLogger('info', sink.stream);
  log.error({ err: new Error('cannot clone https://deploy:tok-1@git.example/r.git') }, 'failed');
  log.info({ remote: 'https://ghp_tok-2@github.com/o/r.git' }, 'via http://user:tok-3@proxy:3128');
  for (const secret of ['tok-1', 'tok-2', 'tok-3']) expect(sink.text()).not.toContain(secret);
  expect(sink.text()).toContain('https://***@git.example/r.git');
  expect(sink.text()).toContain('http://***@proxy:3128');
});
