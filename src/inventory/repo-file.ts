// groundcrew.yaml: repo-wide defaults and rollout policy.

import type { RolloutPolicy } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import { type Mode, RepoFileSchema, VERSION_COMPONENTS } from './schema.js';
import { checkShape, rootMap } from './shape.js';
import { versionProblem } from './versions.js';
import type { Path, YamlSource } from './yaml-source.js';

export interface RepoSettings {
  defaultVersions: Partial<Record<(typeof VERSION_COMPONENTS)[number], string>>;
  defaultMode: Mode;
  rollout: RolloutPolicy;
  file?: string;
  /** An error at a path of groundcrew.yaml, for checks made once every node is read. */
  diagnose?(path: Path, message: string): Diagnostic;
}

export const DEFAULT_ROLLOUT: RolloutPolicy = { maxUnavailable: 1, failureBudget: 1, removalPolicy: 'orphan' };

function knownKeys(path: Path): readonly string[] {
  const [top, second] = path;
  if (top === undefined) return Object.keys(RepoFileSchema.shape);
  if (top === 'defaults' && second === 'versions') return VERSION_COMPONENTS;
  if (top === 'defaults') return ['versions', 'mode'];
  if (top === 'rollout') return ['maxUnavailable', 'failureBudget', 'removalPolicy'];
  return [];
}

export function readRepoFile(src: YamlSource | undefined, diags: Diagnostic[]): RepoSettings {
  const settings: RepoSettings = { defaultVersions: {}, defaultMode: 'autocorrect', rollout: { ...DEFAULT_ROLLOUT } };
  if (!src) return settings;
  settings.file = src.file;
  settings.diagnose = (path, message) => src.diagnostic(path, 'error', message);
  const root = rootMap(src, diags, 'empty', 'a map with defaults and rollout');
  const data = root && checkShape(src, RepoFileSchema, root, knownKeys, diags);
  if (!data) return settings;
  for (const component of VERSION_COMPONENTS) {
    const path = ['defaults', 'versions', component];
    const text = src.scalarText(path);
    if (text === undefined) continue;
    const problem = versionProblem(component, text);
    if (problem) diags.push(src.diagnostic(path, 'error', `defaults.versions.${component}: ${problem}`));
    else settings.defaultVersions[component] = text;
  }
  settings.defaultMode = data.defaults?.mode ?? settings.defaultMode;
  settings.rollout = { ...settings.rollout, ...data.rollout };
  return settings;
}
