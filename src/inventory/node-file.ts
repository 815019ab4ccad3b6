// nodes/<name>.yaml: one node's pinned versions, mode, pause switch, labels and overrides.

import { readConfigMap } from './configuration.js';
import type { ConfigValue, PublishedPort } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import { type Mode, NodeFileSchema, VERSION_COMPONENTS, type VersionComponent } from './schema.js';
import { checkShape, rootMap } from './shape.js';
import { versionProblem } from './versions.js';
import type { Path, YamlSource } from './yaml-source.js';

export interface NodeFileSettings {
  file: string;
  versions: Partial<Record<VersionComponent, string>>;
  mode?: Mode;
  paused?: boolean;
  labels: Record<string, string>;
  overrides: Record<string, ConfigValue>;
  publishedPorts: PublishedPort[];
  /** overlay_interface: the adapter a Windows node's overlay binds. */
  overlayInterface?: string;
  /** An error at a path of this file: checks across nodes report where the operator has to look. */
  diagnose(path: Path, message: string): Diagnostic;
}

function knownKeys(path: Path): readonly string[] {
  if (path.length === 0) return Object.keys(NodeFileSchema.shape);
  if (path[0] === 'versions') return VERSION_COMPONENTS;
  return [];
}

/** The node name a node file is for: its file name without `.yaml`. */
export function nodeNameOf(file: string): string {
  return (file.split('/').pop() ?? file).replace(/\.yaml$/, '');
}

export function readNodeFile(src: YamlSource, diags: Diagnostic[]): NodeFileSettings | undefined {
  const root = rootMap(src, diags, 'empty', 'a map with versions, mode, paused, labels, overrides or published_ports');
  const data = root && checkShape(src, NodeFileSchema, root, knownKeys, diags);
  if (!data) return undefined;
  const versions: NodeFileSettings['versions'] = {};
  for (const component of VERSION_COMPONENTS) {
    const path = ['versions', component];
    const text = src.scalarText(path);
    if (text === undefined) continue;
    const problem = versionProblem(component, text);
    if (problem) diags.push(src.diagnostic(path, 'error', `versions.${component}: ${problem}`));
    else versions[component] = text;
  }
  const labels = Object.fromEntries(Object.keys(data.labels ?? {}).map((k) => [k, src.scalarText(['labels', k]) ?? '']));
  return {
    file: src.file,
    versions,
    mode: data.mode,
    paused: data.paused,
    labels,
    overrides: readConfigMap(src, ['overrides'], data.overrides),
    publishedPorts: data.published_ports ?? [],
    ...(data.overlay_interface ? { overlayInterface: data.overlay_interface } : {}),
    diagnose: (path, message) => src.diagnostic(path, 'error', message),
  };
}
