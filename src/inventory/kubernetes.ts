// Windows Kubernetes workers: the control plane they join and the version skew Kubernetes allows. Pure.

import type { NodeSpec } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import type { NodeFileSettings } from './node-file.js';
import type { RepoSettings } from './repo-file.js';
import type { YamlSource } from './yaml-source.js';

export interface ControlPlane {
  node: string;
  address: string;
  version: string;
}

/** `v1.29.4` -> [1, 29, 4]. */
export function kubernetesVersion(text: string): [number, number, number] {
  const [major = 0, minor = 0, patch = 0] = text.replace(/^v/, '').split('.').map(Number);
  return [major, minor, patch];
}

/** The k8s_master with the oldest Kubernetes: a kubelet must not be newer than any API server it may reach. */
export function controlPlaneOf(nodes: readonly NodeSpec[]): ControlPlane | undefined {
  const masters = nodes.filter((n) => n.roles.includes('k8s_master') && n.versions.kubernetes);
  const oldest = masters.sort((a, b) => {
    const [x, y] = [kubernetesVersion(a.versions.kubernetes?.version ?? ''), kubernetesVersion(b.versions.kubernetes?.version ?? '')];
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  })[0];
  if (!oldest?.versions.kubernetes) return undefined;
  return { node: oldest.name, address: oldest.address, version: oldest.versions.kubernetes.version };
}

interface Places {
  instances: YamlSource;
  nodeFiles: ReadonlyMap<string, NodeFileSettings>;
  repo: RepoSettings;
}

/** Where the node's Kubernetes version was set, for a message an operator can follow. */
function versionDiagnostic(node: NodeSpec, places: Places, message: string): Diagnostic {
  const file = places.nodeFiles.get(node.name);
  if (file && node.versions.kubernetes?.source === file.file) return file.diagnose(['versions', 'kubernetes'], message);
  if (places.repo.diagnose && node.versions.kubernetes) return places.repo.diagnose(['defaults', 'versions', 'kubernetes'], message);
  return places.instances.diagnostic(['instances', node.name], 'error', message, 'key');
}

/**
 * A Windows k8s_node needs its own Kubernetes version and a k8s_master in the inventory (the API server it
 * joins); its kubelet may be older than the control plane by up to three minor versions, never newer.
 */
export function checkKubernetes(nodes: readonly NodeSpec[], places: Places, diags: Diagnostic[]): void {
  const workers = nodes.filter((n) => n.os === 'windows' && n.roles.includes('k8s_node'));
  if (workers.length === 0) return;
  const plane = controlPlaneOf(nodes);
  for (const node of workers) {
    const wanted = node.versions.kubernetes;
    if (!wanted) {
      diags.push(
        places.instances.diagnostic(
          ['instances', node.name],
          'error',
          `node "${node.name}" has role k8s_node but no Kubernetes version: set versions.kubernetes in nodes/${node.name}.yaml or defaults.versions.kubernetes in groundcrew.yaml`,
          'key',
        ),
      );
      continue;
    }
    if (!plane) {
      diags.push(
        versionDiagnostic(
          node,
          places,
          `node "${node.name}" has role k8s_node but no instance with role k8s_master has a Kubernetes version: the kubelet joins that control plane and must not be newer than it`,
        ),
      );
      continue;
    }
    const [kMajor, kMinor] = kubernetesVersion(wanted.version);
    const [pMajor, pMinor] = kubernetesVersion(plane.version);
    if (kMajor !== pMajor || kMinor > pMinor) {
      diags.push(
        versionDiagnostic(
          node,
          places,
          `kubelet ${wanted.version} on node "${node.name}" is newer than the control plane (${plane.version} on "${plane.node}"): a kubelet must not be newer than its API server; upgrade the control plane first`,
        ),
      );
    } else if (pMinor - kMinor > 3) {
      diags.push({
        ...versionDiagnostic(
          node,
          places,
          `kubelet ${wanted.version} on node "${node.name}" is more than three minor versions older than the control plane (${plane.version}): outside Kubernetes' supported skew`,
        ),
        severity: 'warning',
      });
    }
  }
}
