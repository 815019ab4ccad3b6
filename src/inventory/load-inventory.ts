// Reads an inventory repo (or a lone instances.yaml) from disk; parse-inventory.ts does the rest.

import { open, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errors } from '../errors.js';
import { type InventoryFiles, type InventoryResult, MAX_FILE_BYTES, parseInventory, type SourceText } from './parse-inventory.js';

export interface LoadedInventory {
  /** Prefix that turns a repo-relative path into one the caller can open (e.g. `inventory-repo-example/`). */
  root: string;
  result: InventoryResult;
}

async function readCapped(path: string, shownAs: string): Promise<SourceText> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) return { path: shownAs, text: '', bytes: size };
    return { path: shownAs, text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** `path` is a repo directory (instances.yaml, nodes/*.yaml, groundcrew.yaml) or an instances file on its own. */
export async function readInventoryFiles(path: string): Promise<{ root: string; files: InventoryFiles }> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw errors.GC_INVENTORY_NOT_FOUND(`${path}: no such file or directory`);
  if (info.isFile()) {
    const root = dirname(path) === '.' ? '' : `${dirname(path)}/`;
    return { root, files: { instances: await readCapped(path, basename(path)), nodeFiles: [] } };
  }
  const instancesPath = join(path, 'instances.yaml');
  if (!(await exists(instancesPath))) {
    throw errors.GC_INVENTORY_NOT_FOUND(
      `${path}: no instances.yaml here (an inventory repo holds instances.yaml, and optionally nodes/*.yaml and groundcrew.yaml)`,
    );
  }
  const nodeNames = (await readdir(join(path, 'nodes')).catch(() => [] as string[])).filter((f) => f.endsWith('.yaml')).sort();
  const repoPath = join(path, 'groundcrew.yaml');
  return {
    root: path.endsWith('/') ? path : `${path}/`,
    files: {
      instances: await readCapped(instancesPath, 'instances.yaml'),
      nodeFiles: await Promise.all(nodeNames.map((f) => readCapped(join(path, 'nodes', f), `nodes/${f}`))),
      ...((await exists(repoPath)) ? { repoFile: await readCapped(repoPath, 'groundcrew.yaml') } : {}),
    },
  };
}

export async function loadInventory(path: string): Promise<LoadedInventory> {
  const { root, files } = await readInventoryFiles(path);
  return { root, result: parseInventory(files) };
}
