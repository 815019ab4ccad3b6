// The daemon's side of the API token (as Jupyter does it): `<stateDir>/api-token` (0600) made on first start when
// the config names none, and while it runs a record `daemon-<port>.json` {url, tokenFile, pid, identity} in the
// runtime directory, where the CLI finds it (runtime-record.ts, daemon-target.ts).

import { randomBytes } from 'node:crypto';
import { lstatSync, rmSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { errors } from '../errors.js';
import { ensurePrivateDir, writePrivateFileSync } from '../private-files.js';
import { type RuntimeRecord, readRegularFile, runtimeDir } from './runtime-record.js';

/** The configured token file, or `<stateDir>/api-token`, made with a fresh random token if it is not there. */
export function ensureApiToken(stateDir: string, configured?: string): { token: string; file: string } {
  const file = configured ?? join(stateDir, 'api-token');
  if (!configured) ensureOwnToken(file);
  const token = readTokenFile(file);
  if (token.length < 16) throw new Error(`${file}: the API token must be at least 16 characters, found ${token.length}`);
  return { token, file };
}

/**
 * The token groundcrew makes for itself in its state directory: made when it is not there; a link (planted: groundcrew
 * never makes one there) or anything but a regular file is refused by name.
 */
function ensureOwnToken(file: string): void {
  let stat: Stats;
  try {
    stat = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    writePrivateFileSync(file, `${randomBytes(32).toString('hex')}\n`);
    return;
  }
  if (stat.isSymbolicLink()) throw errors.GC_STATE_UNSAFE(`${file} is a symbolic link; groundcrew makes this file itself: remove the link`);
  if (!stat.isFile()) throw errors.GC_STATE_UNSAFE(`${file} is not a regular file; groundcrew makes this file itself: remove it`);
}

const readTokenFile = (file: string) => readRegularFile(file, 'the API token file').trim();

/** Leaves the running daemon's record; the function returned removes it. */
export function writeRuntimeRecord(url: string, tokenFile: string, identity: string): () => void {
  const dir = runtimeDir();
  // Its group may read it (the unit's RuntimeDirectoryMode=0750); nobody else, and no link is followed.
  ensurePrivateDir(dir, 0o027);
  const file = join(dir, `daemon-${new URL(url).port}.json`);
  writePrivateFileSync(file, JSON.stringify({ url, tokenFile, pid: process.pid, identity } satisfies RuntimeRecord));
  return () => rmSync(file, { force: true });
}
