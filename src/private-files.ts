// Files groundcrew keeps for itself (the last good revision, snapshots, host key pins, the runtime record): each
// written to a temporary name of its own, random and created exclusively, never through a link, then renamed over
// the file (a rename replaces a link planted there, it does not follow it); readable by this user alone whatever the
// umask. And the directories they live in, checked before anything is written there.

import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { errors } from './errors.js';

/** New, exclusive, no link followed, owner only. */
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

const temporary = (path: string) => `${path}.${randomBytes(8).toString('hex')}.tmp`;

/** Writes `data` to `path` whole (a reader sees the old file or the new one), made durable before the rename. */
export function writePrivateFileSync(path: string, data: string): void {
  const tmp = temporary(path);
  const fd = openSync(tmp, CREATE, 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
}

/** `writePrivateFileSync` off the event loop. */
export async function writePrivateFile(path: string, data: string): Promise<void> {
  const tmp = temporary(path);
  const handle = await open(tmp, CREATE, 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(tmp, { force: true });
    throw err;
  }
  await handle.close();
  await rename(tmp, path);
}

/**
 * Makes sure `dir` is a directory of this user's (made, with its parents, if it is not there): a link, another kind
 * of file or another owner is refused (GC_STATE_UNSAFE); mode bits in `loose` are taken away (0o077 by default: the
 * state directory is this user's alone; the runtime directory may let its group read, 0o027). Says if it tightened.
 */
export function ensurePrivateDir(dir: string, loose = 0o077): { tightened: boolean } {
  let stat: Stats;
  try {
    stat = lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    stat = lstatSync(dir);
  }
  if (stat.isSymbolicLink()) throw errors.GC_STATE_UNSAFE(`${dir} is a symbolic link, not a directory`);
  if (!stat.isDirectory()) throw errors.GC_STATE_UNSAFE(`${dir} is not a directory`);
  const uid = process.geteuid?.();
  if (uid !== undefined && stat.uid !== uid)
    throw errors.GC_STATE_UNSAFE(`${dir} belongs to uid ${stat.uid}, not to the user groundcrew runs as (uid ${uid})`);
  if ((stat.mode & loose) === 0) return { tightened: false };
  chmodSync(dir, stat.mode & 0o7777 & ~loose);
  return { tightened: true };
}
