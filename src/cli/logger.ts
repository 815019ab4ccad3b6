// The one root logger: JSON lines, each with its syslog priority in front under journald (so `journalctl -p err`
// and the journal's colours work), readable lines on a terminal (colours unless NO_COLOR); credentials redacted
// by fixed paths and by the inventory's secret-key rules (src/inventory/secret.ts) at any depth, and every
// line's `scheme://user:secret@` URLs masked as it is written (src/source/redact-url.ts).

import { fstatSync } from 'node:fs';
import pino, { type DestinationStream, type Logger } from 'pino';
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

/** How log lines are written: `auto` picks journal under systemd's journal, pretty on a terminal, else json. */
export type LogFormat = 'auto' | 'json' | 'journal' | 'pretty';

/** pino's levels as syslog priorities (sd-daemon(3)): fatal crit, error err, warn warning, info info, debug and trace debug. */
const PRIORITY: Record<number, number> = { 60: 2, 50: 3, 40: 4, 30: 6, 20: 7, 10: 7 };

/**
 * Whether `destination` is the stream systemd connected to the journal: `JOURNAL_STREAM` holds its device and inode
 * (systemd.exec(5)); a pipe to another program that merely inherited the variable is not.
 */
export function writesToJournal(destination: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const fd = (destination as { fd?: number }).fd;
  if (!env.JOURNAL_STREAM || typeof fd !== 'number') return false;
  try {
    const { dev, ino } = fstatSync(fd);
    return env.JOURNAL_STREAM === `${dev}:${ino}`;
  } catch {
    return false;
  }
}

/** Each JSON line with `<priority>` in front, as journald reads it (SyslogLevelPrefix=yes, the default). */
function journalLines(destination: NodeJS.WritableStream): DestinationStream {
  return {
    write(line: string) {
      const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 30);
      destination.write(`<${PRIORITY[level] ?? 6}>${line}`);
    },
  };
}

export function rootLogger(
  level: string,
  destination: NodeJS.WritableStream = process.stdout,
  format: LogFormat = 'auto',
  env: NodeJS.ProcessEnv = process.env,
): Logger {
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
  const chosen = format !== 'auto' ? format : writesToJournal(destination, env) ? 'journal' : tty ? 'pretty' : 'json';
  // NO_COLOR (no-color.org): any non-empty value turns colours off.
  const colorize = !env.NO_COLOR;
  if (chosen === 'pretty') return pino(options, pretty({ destination, colorize, ignore: 'pid,hostname,service', sync: true }));
  if (chosen === 'journal') return pino(options, journalLines(destination));
  return pino(options, destination);
}
