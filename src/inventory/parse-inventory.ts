// The inventory repo's files → a DesiredState, or every problem found, each with file:line:col. Pure.

import { wrapSecrets } from './configuration.js';
import type { DesiredState } from './desired-state.js';
import { byLocation, type Diagnostic } from './diagnostic.js';
import { didYouMean } from './did-you-mean.js';
import { readInstances } from './instances-file.js';
import { checkKubernetes } from './kubernetes.js';
import { type NodeFileSettings, nodeNameOf, readNodeFile } from './node-file.js';
import { checkOverlay } from './overlay.js';
import { MAX_FILE_BYTES } from './read-inventory-file.js';
import { readRepoFile } from './repo-file.js';
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

/**
 * Parsed files by path and text: a commit that bumps one node's version leaves instances.yaml as it was,
 * and on a 10,000-node inventory its YAML parse is most of a revision's cost. A YamlSource is only read.
 */
const recent = new Map<string, YamlSource>();

function parsed(file: SourceText): YamlSource {
  const key = `${file.path}\0${file.text}`;
  const hit = recent.get(key);
  if (hit) return hit;
  const src = new YamlSource(file.path, file.text);
  recent.set(key, src);
  if (recent.size > 16) recent.delete(recent.keys().next().value as string);
  return src;
}

/** Parses a file, or reports why it cannot be read at all (refused, too big, too deep, YAML syntax, aliases). */
function open(file: SourceText, diags: Diagnostic[]): YamlSource | undefined {
  const whole = (message: string): Diagnostic => ({ file: file.path, line: 1, col: 1, severity: 'error', message });
  if (file.refused !== undefined) {
    diags.push(whole(`refused: ${file.refused}`));
    return undefined;
  }
  const tooBig = sizeProblem(file.path, Buffer.byteLength(file.text));
  if (tooBig) {
    diags.push(tooBig);
    return undefined;
  }
  const deep = tooDeep(file.text);
  if (deep) {
    diags.push({ ...whole(`nested more than ${MAX_DEPTH} levels deep here; an inventory needs a handful`), ...deep });
    return undefined;
  }
  const src = parsed(file);
  const syntax = src.syntaxErrors();
  diags.push(...syntax);
  if (syntax.length > 0) return undefined;
  for (const dup of src.duplicateKeys()) {
    const what =
      dup.path.length === 2 && dup.path[0] === 'instances'
        ? `node "${String(dup.path[1])}" is defined twice`
        : `key "${dup.path.join('.')}" is repeated`;
    diags.push(src.diagnosticAt(dup.offset, 'error', `${what} (first at line ${dup.firstLine}); YAML would keep only the last`));
  }
  const aliases = src.aliasProblem();
  if (aliases) {
    diags.push(aliases);
    return undefined;
  }
  return src;
}

export function parseInventory(files: InventoryFiles): InventoryResult {
  const diags: Diagnostic[] = [];
  const repoSrc = files.repoFile && open(files.repoFile, diags);
  const repo = readRepoFile(repoSrc, diags);

  const nodeFiles = new Map<string, NodeFileSettings>();
  for (const file of files.nodeFiles) {
    const src = open(file, diags);
    const settings = src && readNodeFile(src, diags);
    if (settings) nodeFiles.set(nodeNameOf(file.path), settings);
  }

  const instancesSrc = open(files.instances, diags);
  const nodes = instancesSrc ? readInstances(instancesSrc, { repo, nodeFiles }, diags) : [];
  if (instancesSrc) {
    checkOverlay(nodes, nodeFiles, instancesSrc, diags);
    checkKubernetes(nodes, { instances: instancesSrc, nodeFiles, repo }, diags);
    const names = new Set(Object.keys((instancesSrc.toJS() as { instances?: object } | null)?.instances ?? {}));
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
  const kolla = (instancesSrc.toJS() as { kolla_config?: unknown }).kolla_config;
  return { ok: true, warnings, state: { nodes, rollout: repo.rollout, kolla: wrapSecrets(kolla), warnings } };
}
