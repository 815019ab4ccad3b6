// Why `groundcrew run` could not start, in one line an operator acts on: a port in use, a file missing or
// unreadable, a bad value. No stack trace: under systemd it would be a screenful in the journal on every restart.

import { GroundcrewError } from '../errors.js';
import { redactUrls } from '../source/redact-url.js';
import { fileProblem } from './file-problem.js';

interface SystemError extends Error {
  code?: string;
  address?: string;
  port?: number;
  syscall?: string;
}

export function startupError(err: unknown): string {
  const e = err as SystemError;
  if (e?.code === 'EADDRINUSE' || e?.code === 'EADDRNOTAVAIL' || (e?.code === 'EACCES' && e.syscall === 'listen')) {
    const where = e.address !== undefined && e.port !== undefined ? `${e.address}:${e.port}` : 'the listen address';
    const why =
      e.code === 'EADDRINUSE'
        ? 'is in use (another groundcrew, or another service: change `listen` in the config)'
        : e.code === 'EACCES'
          ? 'needs privileges this user lacks (ports below 1024: use a higher port behind a reverse proxy)'
          : 'is not an address of this host (check `listen` in the config)';
    return `cannot listen on ${where}: it ${why}`;
  }
  const file = fileProblem(err);
  if (file) return file;
  // Credentials of a URL in a message (a Git remote's, a proxy's) are masked: stderr goes to the journal.
  if (err instanceof GroundcrewError) return redactUrls(`${err.message} (${err.code})`);
  const message = err instanceof Error ? err.message : String(err);
  return redactUrls(message.split('\n')[0] ?? message);
}
