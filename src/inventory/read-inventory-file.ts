// Reads one file of an inventory repo as the hostile input it is: only a regular file inside the root,
// opened without following links and without blocking, and never more bytes than the cap.
// Anyone who can push can commit a symlink (mode 120000) to /etc/shadow, /dev/zero or a pipe.

import { constants } from 'node:fs';
import { lstat, open, readlink, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/** A real instances.yaml for 10,000 nodes is about 1.5 MiB; anything far past that is a mistake. */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/** A file read, or why it was refused: the reason names what the file is, never what it holds. */
export type FileRead = { ok: true; text: string } | Refused;
export type Refused = { ok: false; refused: string };

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const ONLY = 'only regular files inside the inventory are read';
const notRegular = (what: string): Refused => ({ ok: false, refused: `${what}; ${ONLY}` });

/** What a non-regular file is, in the words an operator knows. */
export function kindOf(info: {
  isSymbolicLink(): boolean;
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (info.isSymbolicLink()) return 'a symbolic link';
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Every component of `rel` under `root` must be what it says: directories on the way, no symbolic link
 * anywhere. Returns the first refusal, or undefined when the path is clean (or missing: `missing` then).
 */
export async function checkPath(root: string, rel: string, last: 'file' | 'directory'): Promise<Refused | 'missing' | undefined> {
  const parts = rel.split('/').filter(Boolean);
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = join(at, part);
    const info = await lstat(at).catch((err: NodeJS.ErrnoException) => err);
    if (info instanceof Error) return info.code === 'ENOENT' || info.code === 'ENOTDIR' ? 'missing' : refusal(info);
    const wanted = i < parts.length - 1 || last === 'directory' ? 'directory' : 'file';
    if (info.isSymbolicLink()) return notRegular(kindOf(info));
    if (wanted === 'directory' && !info.isDirectory()) return notRegular(`${kindOf(info)}, where a directory was expected`);
  }
  return undefined;
}

function refusal(err: NodeJS.ErrnoException): Refused {
  // ELOOP is O_NOFOLLOW meeting a link that appeared after the check.
  if (err.code === 'ELOOP') return notRegular('a symbolic link');
  return { ok: false, refused: `cannot be read (${err.code ?? 'error'})` };
}

/**
 * `rel` (slash-separated, relative to `root`) as UTF-8 text, or why not. `root` itself is the operator's
 * choice and may be reached through links; nothing below it may be.
 */
export async function readInventoryFile(
  root: string,
  rel: string,
  maxBytes = MAX_FILE_BYTES,
  /** realpath(root): a caller reading many files of one inventory works it out once. */
  realRoot?: string,
): Promise<FileRead> {
  const path = await checkPath(root, rel, 'file');
  if (path === 'missing') return { ok: false, refused: 'no such file' };
  if (path) return path;
  // O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the last component cannot be a link.
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const handle = await open(join(root, rel), flags).catch((err: NodeJS.ErrnoException) => err);
  if (handle instanceof Error) {
    // A socket cannot be opened at all (ENXIO): say what it is rather than how open failed.
    const info = await lstat(join(root, rel)).catch(() => undefined);
    return info && !info.isFile() ? notRegular(kindOf(info)) : refusal(handle);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return notRegular(kindOf(info));
    // A directory on the way swapped for a link after the check: the open file's real place says so.
    const inRoot = realRoot ?? (await realpath(root));
    const real = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => realpath(join(root, rel)));
    const inside = relative(inRoot, real);
    if (inside.startsWith(`..${sep}`) || inside === '..' || inside.startsWith(sep)) {
      return notRegular('its real path leaves the inventory');
    }
    if (info.size > maxBytes) return { ok: false, refused: `larger than ${mib(maxBytes)} (${mib(info.size)})` };
    // The size stat gave is not trusted (a file can grow, /proc lies): read in chunks, stop one byte past the cap.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, maxBytes + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) return { ok: false, refused: `larger than ${mib(maxBytes)}` };
    }
    return { ok: true, text: Buffer.concat(chunks, length).toString('utf8') };
  } finally {
    await handle.close();
  }
}
