// The versions a node was seen running, read from its verify phase's checks (not from what was asked).

import type { Os } from '../os.js';
import type { PhaseOutcome } from './phase.js';
import { UNKNOWN_BUILD } from './windows/msi-resource.js';

export function observedVersions(os: Os, outcome: PhaseOutcome): Record<string, string> | undefined {
  if (outcome.phase !== 'verify') return undefined;
  const actual = (name: string) => outcome.resources.find((r) => r.resource === name)?.before.actual as Record<string, unknown> | undefined;
  if (os === 'windows') {
    // The build the vRouter MSI was installed from (roles/windows/msi-products.ts: its product name is "vRouter").
    const version = actual('verify/versions')?.vRouter;
    return typeof version === 'string' && version !== UNKNOWN_BUILD ? { contrail: version } : undefined;
  }
  // "registry/contrail-vrouter-agent:5.0.2 running": the tag of a running Contrail image.
  for (const value of Object.values(actual('verify/vrouter-containers') ?? {})) {
    const tag = /\/contrail-[\w-]+:(\S+) running$/.exec(String(value))?.[1];
    if (tag) return { contrail: tag };
  }
  return undefined;
}
