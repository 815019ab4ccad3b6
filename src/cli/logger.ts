// The one root logger: JSON lines on stdout for journald, readable lines on a terminal; credentials redacted
// by fixed paths and by the inventory's secret-key rules (src/inventory/secret.ts) at any depth, and every
// line's `scheme://user:secret@` URLs masked as it is written (src/source/redact-url.ts).

import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { redactSecrets } from '../inventory/secret.js';
import { redactUrls } from '../source/redact-url.js';

export const REDACT = [
  'password',
  '*.password',
  '*.*.password',
  'secret',
  '*.secret',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers["x-gitlab-token"]',
];

export function rootLogger(level: string, destination: NodeJS.WritableStream = process.stdout): Logger {
  const options = {
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { service: 'groundcrew' },
    // Every key the inventory's rules call a credential, at any depth (the paths above are the fixed ones).
    formatters: { log: (record: Record<string, unknown>) => redactSecrets(record) },
    // The last word on URLs, whatever carried them (an error's message or stack, a library's log line).
    hooks: { streamWrite: redactUrls },
  };
  const tty = (destination as { isTTY?: boolean }).isTTY === true;
  return tty
    ? pino(options, pretty({ destination, colorize: true, ignore: 'pid,hostname,service', sync: true }))
    : pino(options, destination);
}
