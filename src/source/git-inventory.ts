// A commit's inventory read straight from the object database (no checkout): instances.yaml, nodes/*.yaml and
// groundcrew.yaml under the inventory's directory, with the same refusals as a working copy's reader (a link or
// a submodule where a file or folder should be, a file past the size cap). Blobs are kept by oid from one
// revision to the next, so a commit that changes one node file reads one blob.

import { errors } from '../errors.js';
import type { InventoryFiles, SourceText } from '../inventory/parse-inventory.js';
import { MAX_FILE_BYTES } from '../inventory/read-inventory-file.js';
import { commitFields, type GitObjects, type TreeEntry, treeEntries } from './git-objects.js';

const ONLY = 'only regular files inside the inventory are read';
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** What a tree entry's mode says it is, in the words read-inventory-file.ts uses for the same thing on disk. */
function kindOf(mode: string): string {
  if (mode === '120000') return 'a symbolic link';
  if (mode === '40000' || mode === '040000') return 'a directory';
  if (mode === '160000') return 'a submodule';
  return 'not a regular file';
}

/** As checkPath says it: a link is a link, anything else is named with what was expected. */
const notADirectory = (e: TreeEntry) => (e.mode === '120000' ? kindOf(e.mode) : `${kindOf(e.mode)}, where a directory was expected`);
const isTree = (e: TreeEntry) => e.mode === '40000' || e.mode === '040000';
const isFile = (e: TreeEntry) => e.mode === '100644' || e.mode === '100755';

export class GitInventoryReader {
  /** Blob texts of the last revision read, by oid. */
  #blobs = new Map<string, string>();

  /** `path` is the inventory's directory in the repo ('' or '.' for the top); `shown` prefixes it in messages. */
  constructor(
    private readonly objects: GitObjects,
    private readonly path: string,
    private readonly shown: string,
  ) {}

  /** The commit's tree, parents and subject. */
  async commit(sha: string): Promise<ReturnType<typeof commitFields>> {
    const commit = await this.objects.read(sha);
    if (commit?.type !== 'commit') throw errors.GC_GIT_FETCH(`commit ${sha} is not in the clone`);
    return commitFields(commit.content);
  }

  /** The inventory's files at commit `sha`. */
  async files(sha: string): Promise<InventoryFiles> {
    const { tree } = await this.commit(sha);
    const oidBytes = sha.length / 2;
    const list = async (oid: string) => {
      const object = await this.objects.read(oid);
      if (object?.type !== 'tree') throw errors.GC_GIT_FETCH(`tree ${oid} of commit ${sha} is not in the clone`);
      return treeEntries(object.content, oidBytes);
    };
    // The folders down to the inventory: each must be a folder (a link out of the repo is refused by name).
    let entries = await list(tree);
    const parts = this.path.split('/').filter((p) => p && p !== '.');
    for (const part of parts) {
      const entry = entries.find((e) => e.name === part);
      if (!entry) throw errors.GC_INVENTORY_NOT_FOUND(`${this.shown}: no such file or directory`);
      if (!isTree(entry)) throw errors.GC_INVENTORY_NOT_FOUND(`${parts.join('/')}: refused: ${notADirectory(entry)}; ${ONLY}`);
      entries = await list(entry.oid);
    }
    const blobs = new Map<string, string>();
    const file = async (path: string, entry: TreeEntry): Promise<SourceText> => {
      if (!isFile(entry)) return { path, text: '', refused: `${kindOf(entry.mode)}; ${ONLY}` };
      const known = this.#blobs.get(entry.oid) ?? blobs.get(entry.oid);
      if (known !== undefined) {
        blobs.set(entry.oid, known);
        return { path, text: known };
      }
      const blob = await this.objects.read(entry.oid);
      if (!blob) throw errors.GC_GIT_FETCH(`blob ${entry.oid} (${path}) of commit ${sha} is not in the clone`);
      if (blob.content.length > MAX_FILE_BYTES)
        return { path, text: '', refused: `larger than ${mib(MAX_FILE_BYTES)} (${mib(blob.content.length)})` };
      const text = blob.content.toString('utf8');
      blobs.set(entry.oid, text);
      return { path, text };
    };
    const named = (name: string) => entries.find((e) => e.name === name);
    const instances = named('instances.yaml');
    if (!instances) {
      throw errors.GC_INVENTORY_NOT_FOUND(
        `${this.shown}: no instances.yaml here (an inventory repo holds instances.yaml, and optionally nodes/*.yaml and groundcrew.yaml)`,
      );
    }
    const repo = named('groundcrew.yaml');
    const [instancesFile, nodeFiles, repoFile] = await Promise.all([
      file('instances.yaml', instances),
      this.#nodeFiles(named('nodes'), list, file),
      repo ? file('groundcrew.yaml', repo) : undefined,
    ]);
    this.#blobs = blobs;
    return { instances: instancesFile, nodeFiles, ...(repoFile ? { repoFile } : {}) };
  }

  async #nodeFiles(
    nodes: TreeEntry | undefined,
    list: (oid: string) => Promise<TreeEntry[]>,
    file: (path: string, entry: TreeEntry) => Promise<SourceText>,
  ): Promise<SourceText[]> {
    if (!nodes) return [];
    if (!isTree(nodes)) return [{ path: 'nodes', text: '', refused: `${notADirectory(nodes)}; ${ONLY}` }];
    const entries = (await list(nodes.oid)).filter((e) => e.name.endsWith('.yaml'));
    // In the order a working copy's reader gives them (readdir, sorted).
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return Promise.all(entries.map((e) => file(`nodes/${e.name}`, e)));
  }
}
