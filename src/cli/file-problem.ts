// What an operator is told when a file named in the config cannot be read: one set of words for every such file
// (the config itself, the API token, secrets, keys), the path first. A link whose target is not there is named as
// such: "no such file" about a path that `ls` shows would send the operator looking in the wrong place.

import { lstatSync, readlinkSync } from 'node:fs';

const WORDS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied (is it readable by the user groundcrew runs as?)',
  EPERM: 'permission denied (is it readable by the user groundcrew runs as?)',
  EISDIR: 'a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'a loop of symbolic links',
};

/** `err` (a failed read of a file) in words, or undefined when it is not a file error these words cover. */
export function fileProblemWords(err: unknown): string | undefined {
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException;
  const words = code ? WORDS[code] : undefined;
  if (!words || !path) return words;
  if (code === 'ENOENT') {
    const target = danglingTarget(path);
    if (target !== undefined) return `a symbolic link to ${target}, which is not there`;
  }
  return words;
}

/** `err` as `path: words`, or undefined when it is not a file error these words cover. */
export function fileProblem(err: unknown): string | undefined {
  const { path } = (err ?? {}) as NodeJS.ErrnoException;
  const words = fileProblemWords(err);
  return words && path ? `${path}: ${words}` : undefined;
}

function danglingTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}
