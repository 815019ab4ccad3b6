// Reads an inventory repo (or a lone instances.yaml) from disk; parse-inventory.ts does the rest.
// Every file goes through read-inventory-file.ts: a link, pipe or device in the repo is refused by name.

import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { errors } from '../errors.js';
import { type InventoryFiles, type InventoryResult, parseInventory, type SourceText } from './parse-inventory.js';
import type { ParseMemo } from './parse-memo.js';
import { checkPath, readInventoryFile } from './read-inventory-file.js';

export interface LoadedInventory {
  /** Prefix that turns a repo-relative path into one the caller can open (e.g. `inventory-repo-example/`). */
  root: string;
  result: InventoryResult;
}

export interface ReadOptions {
  /**
   * The top of the working tree `path` lies in (a Git checkout): the folders between it and `path` came
   * from the repo too, so none of them may be a link.
   */
  repoRoot?: string;
  /** What the last parse left (the daemon keeps one across revisions): unchanged files and nodes are not read again. */
  memo?: ParseMemo;
}

async function read(root: string, rel: string, realRoot?: string): Promise<SourceText> {
  const file = await readInventoryFile(root, rel, undefined, realRoot);
  return file.ok ? { path: rel, text: file.text } : { path: rel, text: '', refused: file.refused };
}

/** Present at all (a link or a pipe counts: the reader refuses it by name rather than skip it). */
async function present(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** The node files: nodes/ itself must be a real directory; each *.yaml in it is read (or refused) by name. */
async function readNodeFiles(root: string, realRoot: string): Promise<SourceText[]> {
  const check = await checkPath(root, 'nodes', 'directory');
  if (check === 'missing') return [];
  if (check) return [{ path: 'nodes', text: '', refused: check.refused }];
  const names = (await readdir(join(root, 'nodes')).catch(() => [] as string[])).filter((f) => f.endsWith('.yaml')).sort();
  return Promise.all(names.map((f) => read(root, `nodes/${f}`, realRoot)));
}

/** `path` is a repo directory (instances.yaml, nodes/*.yaml, groundcrew.yaml) or an instances file on its own. */
export async function readInventoryFiles(path: string, options: ReadOptions = {}): Promise<{ root: string; files: InventoryFiles }> {
  if (options.repoRoot) {
    const inRepo = relative(options.repoRoot, path);
    const check = inRepo && !inRepo.startsWith('..') ? await checkPath(options.repoRoot, inRepo, 'directory') : undefined;
    if (check && check !== 'missing') throw errors.GC_INVENTORY_NOT_FOUND(`${inRepo}: refused: ${check.refused}`);
  }
  const info = await stat(path).catch(() => undefined);
  if (!info) throw errors.GC_INVENTORY_NOT_FOUND(`${path}: no such file or directory`);
  if (info.isFile()) {
    const root = dirname(path) === '.' ? '' : `${dirname(path)}/`;
    return { root, files: { instances: await read(dirname(path), basename(path)), nodeFiles: [] } };
  }
  if (!(await present(join(path, 'instances.yaml')))) {
    throw errors.GC_INVENTORY_NOT_FOUND(
      `${path}: no instances.yaml here (an inventory repo holds instances.yaml, and optionally nodes/*.yaml and groundcrew.yaml)`,
    );
  }
  // Where the inventory really is, worked out once: each file's real path must stay inside it.
  const realRoot = await realpath(path);
  const [instances, nodeFiles, repoFile] = await Promise.all([
    read(path, 'instances.yaml', realRoot),
    readNodeFiles(path, realRoot),
    present(join(path, 'groundcrew.yaml')).then((here) => (here ? read(path, 'groundcrew.yaml', realRoot) : undefined)),
  ]);
  return {
    root: path.endsWith('/') ? path : `${path}/`,
    files: { instances, nodeFiles, ...(repoFile ? { repoFile } : {}) },
  };
}

export async function loadInventory(path: string, options: ReadOptions = {}): Promise<LoadedInventory> {
  const { root, files } = await readInventoryFiles(path, options);
  return { root, result: parseInventory(files, options.memo) };
}
