// The inventory repo's files → a DesiredState, or every problem found, each with file:line:col. Pure.

import { wrapSecrets } from './configuration.js';
import type { DesiredState } from './desired-state.js';
import { byLocation, type Diagnostic } from './diagnostic.js';
import { didYouMean } from './did-you-mean.js';
import { readInstances } from './instances-file.js';
import { checkKubernetes } from './kubernetes.js';
import { type NodeFileSettings, nodeNameOf, readNodeFile } from './node-file.js';
import { checkOverlay } from './overlay.js';
import { derive, type OpenedFile, ParseMemo } from './parse-memo.js';
import { MAX_FILE_BYTES } from './read-inventory-file.js';
import { type RepoSettings, readRepoFile } from './repo-file.js';
import { MAX_DEPTH, tooDeep } from './yaml-limits.js';
import { YamlSource } from './yaml-source.js';

export interface SourceText {
  /** Path relative to the repo root, as it appears in messages. */
  path: string;
  text: string;
  /** Why the loader did not read it (a link, a pipe, too big: see read-inventory-file.ts); `text` is then empty. */
  refused?: string;
}

export interface InventoryFiles {
  instances: SourceText;
  nodeFiles: readonly SourceText[];
  repoFile?: SourceText;
}

export type InventoryResult =
  | { ok: true; state: DesiredState; warnings: Diagnostic[] }
  | { ok: false; errors: Diagnostic[]; warnings: Diagnostic[] };

export function sizeProblem(path: string, bytes: number): Diagnostic | undefined {
  if (bytes <= MAX_FILE_BYTES) return undefined;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return { file: path, line: 1, col: 1, severity: 'error', message: `${path} is ${mib(bytes)}; the limit is ${mib(MAX_FILE_BYTES)}` };
}

/** Opens a file, or reports why it cannot be read at all (refused, too big, too deep, YAML syntax, aliases). */
function openFile(file: SourceText): OpenedFile {
  const diags: Diagnostic[] = [];
  const closed = { text: file.text, refused: file.refused, diags, derived: new Map<string, unknown>() };
  const whole = (message: string): Diagnostic => ({ file: file.path, line: 1, col: 1, severity: 'error', message });
  if (file.refused !== undefined) {
    diags.push(whole(`refused: ${file.refused}`));
    return closed;
  }
  const tooBig = sizeProblem(file.path, Buffer.byteLength(file.text));
  if (tooBig) {
    diags.push(tooBig);
    return closed;
  }
  const deep = tooDeep(file.text);
  if (deep) {
    diags.push({ ...whole(`nested more than ${MAX_DEPTH} levels deep here; an inventory needs a handful`), ...deep });
    return closed;
  }
  const src = new YamlSource(file.path, file.text);
  const syntax = src.syntaxErrors();
  diags.push(...syntax);
  if (syntax.length > 0) return closed;
  for (const dup of src.duplicateKeys()) {
    const what =
      dup.path.length === 2 && dup.path[0] === 'instances'
        ? `node "${String(dup.path[1])}" is defined twice`
        : `key "${dup.path.join('.')}" is repeated`;
    diags.push(src.diagnosticAt(dup.offset, 'error', `${what} (first at line ${dup.firstLine}); YAML would keep only the last`));
  }
  diags.push(...src.controlCharacters());
  const aliases = src.aliasProblem();
  if (aliases) {
    diags.push(aliases);
    return closed;
  }
  return { ...closed, src };
}

/**
 * Parses the inventory's files. With a memo (the daemon keeps one across revisions), a file whose text is
 * unchanged is not parsed again and a node whose inputs are unchanged is not derived again: its NodeSpec is
 * the same object as in the last result. Without one, every file is read cold; the two give equal results.
 */
export function parseInventory(files: InventoryFiles, memo: ParseMemo = new ParseMemo()): InventoryResult {
  memo.begin();
  try {
    return parseWith(files, memo);
  } finally {
    memo.end();
  }
}

function parseWith(files: InventoryFiles, memo: ParseMemo): InventoryResult {
  const diags: Diagnostic[] = [];
  const open = (file: SourceText): OpenedFile => {
    const opened = memo.opened(file.path, file.text, file.refused, () => openFile(file));
    diags.push(...opened.diags);
    return opened;
  };
  const repoOpened = files.repoFile && open(files.repoFile);
  const repo = withDiags(
    diags,
    repoOpened ? derive(repoOpened, 'repo', () => read((d) => readRepoFile(repoOpened.src, d))) : defaultRepo(memo),
  );

  const nodeFiles = new Map<string, NodeFileSettings>();
  for (const file of files.nodeFiles) {
    const opened = open(file);
    const { src } = opened;
    const settings =
      src &&
      withDiags(
        diags,
        derive(opened, 'node', () => read((d) => readNodeFile(src, d))),
      );
    if (settings) nodeFiles.set(nodeNameOf(file.path), settings);
  }

  const instancesOpened = open(files.instances);
  const instancesSrc = instancesOpened.src;
  const nodes = instancesSrc ? readInstances(instancesSrc, { repo, nodeFiles }, diags, instancesOpened.derived) : [];
  if (instancesSrc) {
    checkOverlay(nodes, nodeFiles, instancesSrc, diags);
    checkKubernetes(nodes, { instances: instancesSrc, nodeFiles, repo }, diags);
    const names = derive(
      instancesOpened,
      'names',
      () => new Set(Object.keys((instancesSrc.toJS() as { instances?: object } | null)?.instances ?? {})),
    );
    for (const file of files.nodeFiles) {
      if (file.refused !== undefined) continue;
      const name = nodeNameOf(file.path);
      if (!names.has(name)) {
        diags.push({
          file: file.path,
          line: 1,
          col: 1,
          severity: 'error',
          message: `${file.path} is for node "${name}", but ${files.instances.path} has no instance "${name}"${didYouMean(name, names)}`,
        });
      }
    }
  }

  const errors = diags.filter((d) => d.severity === 'error').sort(byLocation);
  const warnings = diags.filter((d) => d.severity === 'warning').sort(byLocation);
  if (errors.length > 0 || !instancesSrc) return { ok: false, errors, warnings };
  const kolla = derive(instancesOpened, 'kolla', () => wrapSecrets((instancesSrc.toJS() as { kolla_config?: unknown }).kolla_config));
  return { ok: true, warnings, state: { nodes, rollout: repo.rollout, kolla, warnings } };
}

/** A read and the problems it found, kept together so a memo can give both again. */
function read<T>(make: (diags: Diagnostic[]) => T): { value: T; diags: Diagnostic[] } {
  const diags: Diagnostic[] = [];
  return { value: make(diags), diags };
}

function withDiags<T>(diags: Diagnostic[], got: { value: T; diags: Diagnostic[] }): T {
  diags.push(...got.diags);
  return got.value;
}

/** The settings when there is no groundcrew.yaml: one object while the memo lives, so nodes can be compared. */
function defaultRepo(memo: ParseMemo): { value: RepoSettings; diags: Diagnostic[] } {
  let made = memo.constants.get('repo') as { value: RepoSettings; diags: Diagnostic[] } | undefined;
  if (!made) {
    made = read((d) => readRepoFile(undefined, d));
    memo.constants.set('repo', made);
  }
  return made;
}
