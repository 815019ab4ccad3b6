// Error codes of the roles: see docs/errors.md.

import { errorClass } from '../errors.js';

export const ROLE_CODES = {
  GC_MSI_FAILED: { retryable: false, meaning: 'an MSI install or uninstall failed (1603 and others); the log tail says why' },
  GC_MSI_BUSY: { retryable: true, meaning: 'another MSI install was running on the node (1618)' },
  GC_FACTS_FAILED: { retryable: true, meaning: "the script that reads a phase's facts failed or answered something unreadable" },
  GC_SET_FAILED: { retryable: false, meaning: 'a command that changes the node failed' },
  GC_STILL_DIFFERENT: { retryable: false, meaning: 'a resource still differs after it was set' },
  GC_KEYSTONE_UNAVAILABLE: { retryable: true, meaning: 'Keystone does not answer from the node (not up yet, or unreachable)' },
  GC_KEYSTONE_AUTH: { retryable: false, meaning: 'Keystone refused the configured credentials' },
  GC_RUNTIME_MISSING: { retryable: false, meaning: 'the container runtime the kubelet needs (containerd) is not installed on the node' },
  GC_ARTIFACT_MISSING: {
    retryable: false,
    meaning: 'a file groundcrew copies to nodes (kubelet.exe of a version) is not on the control host',
  },
  GC_KUBERNETES_CONFIG: { retryable: false, meaning: "a Kubernetes worker's bootstrap token, cluster CA or API server is not configured" },
  GC_CONFIG_API: { retryable: true, meaning: 'the Contrail config API did not accept the virtual router' },
} as const;

export type RoleCode = keyof typeof ROLE_CODES;

export class RoleError extends errorClass('RoleError', ROLE_CODES) {}
