// The daemon's log lines as journald, a terminal and a pipe get them (issue 29: under journald every line had the
// same priority, and NO_COLOR was ignored).

import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LogFormat, rootLogger } from '../../../src/cli/logger.js';
import { logSink } from '../../support/log-sink.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-logger-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A destination on a real file descriptor (as stdout is), and what was written to it. */
function fileDestination() {
  const path = join(dir, `log-${++files}`);
  const fd = openSync(path, 'w');
  const { dev, ino } = fstatSync(fd);
  return {
    destination: Object.assign(
      { fd, write: (chunk: string) => writeSync(fd, chunk) > 0 },
      {} as unknown as NodeJS.WritableStream,
    ) as NodeJS.WritableStream,
    journalStream: `${dev}:${ino}`,
    lines: () => {
      closeSync(fd);
      return readFileSync(path, 'utf8').split('\n').filter(Boolean);
    },
  };
}

function logSome(format: LogFormat, env: NodeJS.ProcessEnv) {
  const out = fileDestination();
  const log = rootLogger('debug', out.destination, format, {
    ...env,
    JOURNAL_STREAM: env.JOURNAL_STREAM === 'this' ? out.journalStream : env.JOURNAL_STREAM,
  });
  log.error('broke');
  log.warn('odd');
  log.info('fine');
  log.debug('detail');
  return out.lines();
}

describe('the root logger', () => {
  it('under journald (JOURNAL_STREAM names stdout) puts each line’s syslog priority in front of its JSON', () => {
    const lines = logSome('auto', { JOURNAL_STREAM: 'this' });
    expect(lines.map((l) => l.slice(0, 3))).toEqual(['<3>', '<4>', '<6>', '<7>']);
    expect(JSON.parse((lines[0] as string).slice(3))).toMatchObject({ msg: 'broke', level: 50 });
  });

  it('writes plain JSON lines when JOURNAL_STREAM names another stream (a pipe that inherited it) or none', () => {
    for (const env of [{ JOURNAL_STREAM: '1:2' }, {}]) {
      const lines = logSome('auto', env);
      expect(lines).toHaveLength(4);
      for (const line of lines) expect(line.startsWith('{')).toBe(true);
    }
  });

  it('log.format: journal forces the prefix, json forces plain lines', () => {
    expect(logSome('journal', {})[0]?.startsWith('<3>{')).toBe(true);
    expect(logSome('json', { JOURNAL_STREAM: 'this' })[0]?.startsWith('{')).toBe(true);
  });

  it('pretty lines are coloured unless NO_COLOR is set', () => {
    const pretty = (env: NodeJS.ProcessEnv) => {
      const sink = logSink();
      rootLogger('info', sink.stream, 'pretty', env).error('broke');
      return sink.text();
    };
    expect(pretty({})).toContain('\x1b[');
    const plain = pretty({ NO_COLOR: '1' });
    expect(plain).toContain('broke');
    expect(plain).not.toContain('\x1b[');
  });
});
