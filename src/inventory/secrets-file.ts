// The daemon's secrets file (outside the repo): KEY: value pairs that win over instances.yaml's configuration
// for every node, held as secrets (redacted everywhere). Parsing is pure; the daemon reads the file.

import { configFormExpected } from './configuration.js';
import type { DesiredState, NodeSpec } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import { Secret } from './secret.js';
import { YamlSource } from './yaml-source.js';

export type SecretValues = Readonly<Record<string, Secret>>;

/** `KUBERNETES_BOOTSTRAP_TOKEN: abcdef.0123456789abcdef` lines; anything else is reported with file:line:col. */
export function parseSecretsFile(file: string, text: string): { values: SecretValues; errors: Diagnostic[] } {
  const src = new YamlSource(file, text);
  const errors = src.syntaxErrors();
  if (errors.length > 0) return { values: {}, errors };
  const data = src.toJS();
  if (data === null || data === undefined) return { values: {}, errors: [] };
  if (typeof data !== 'object' || Array.isArray(data))
    return { values: {}, errors: [src.diagnostic([], 'error', `${file}: expected a map of KEY: value`)] };
  errors.push(...src.controlCharacters());
  if (errors.length > 0) return { values: {}, errors };
  const values: Record<string, Secret> = {};
  for (const [key, value] of Object.entries(data)) {
    const text = src.scalarText([key]);
    if (!/^[A-Z][A-Z0-9_]*$/.test(key) || text === undefined || (value !== null && typeof value === 'object'))
      errors.push(src.diagnostic([key], 'error', `${key}: expected an upper-case configuration key with a plain value`, 'key'));
    else {
      const expected = configFormExpected(key, text);
      // The value is a secret: never shown, even when it is wrong.
      if (expected) errors.push(src.diagnostic([key], 'error', `${key}: the value is not ${expected}`));
      else values[key] = new Secret(text);
    }
  }
  return { values, errors };
}

/** A node with the secrets on top, while both are the same objects: an unchanged node stays the same object. */
const merged = new WeakMap<NodeSpec, { values: SecretValues; node: NodeSpec }>();

/**
 * Every node's configuration with the secrets file's values on top (they win over the repo). Given the same
 * `values` object again (the caller keeps the parse of an unchanged secrets file), a node read again from
 * unchanged files gives the same merged node.
 */
export function withSecrets(state: DesiredState, values: SecretValues): DesiredState {
  if (Object.keys(values).length === 0) return state;
  const merge = (node: NodeSpec): NodeSpec => {
    const made = merged.get(node);
    if (made?.values === values) return made.node;
    const withValues = { ...node, configuration: { ...node.configuration, ...values } };
    merged.set(node, { values, node: withValues });
    return withValues;
  };
  return { ...state, nodes: state.nodes.map(merge) };
}
