// Where a test's logger writes: a stream that keeps every line, to read back as text or as JSON records.

import { Writable } from 'node:stream';

export interface LogSink {
  /** Give this to pino (or rootLogger) as its destination. */
  stream: Writable;
  /** Everything written so far. */
  text(): string;
  /** Each JSON line written so far, parsed. */
  records<T = Record<string, unknown>>(): T[];
}

export function logSink(): LogSink {
  const chunks: string[] = [];
  const text = () => chunks.join('');
  return {
    stream: new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    text,
    records: <T>() =>
      text()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as T),
  };
}
