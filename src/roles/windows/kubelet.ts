// The Windows Kubernetes worker (the WMCB design): containerd present, kubelet.exe of the desired version,
// the bootstrap kubeconfig, kubelet configuration and cluster CA, and the kubelet service (automatic, after containerd,
// restarted on failure). Files are replaced only with the service stopped; it is started again at the end.

import { createHash } from 'node:crypto';
import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import type { KubeletInput } from '../input.js';
import { type Phase, setByCommand } from '../phase.js';
import { compare, type Facts, type Resource } from '../resource.js';
import { parseScFailure, parseScQc } from './parsers.js';
import { serviceStatus } from './queries.js';
import { stdinOf, writeFromStdin } from './write-from-stdin.js';

export const KUBE_DIR = 'C:\\k';
export const KUBELET_EXE = `${KUBE_DIR}\\kubelet.exe`;
export const BOOTSTRAP_KUBECONFIG = `${KUBE_DIR}\\bootstrap-kubeconfig`;
export const KUBELET_CONFIG = `${KUBE_DIR}\\kubelet-config.yaml`;
export const CLUSTER_CA = `${KUBE_DIR}\\ca.crt`;
export const RUNTIME_SERVICE = 'containerd';
const RUNTIME_ENDPOINT = 'npipe:////./pipe/containerd-containerd';
/** Restart after 10 s, three times, the counter reset after a day (what WMCB sets). */
const FAILURE_ACTIONS = 'restart/10000/restart/10000/restart/10000';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex').toUpperCase();
const hashFact = (id: string, path: string) => ({
  id,
  ps: `$h = Get-FileHash -LiteralPath ${psQuote(path)} -Algorithm SHA256 -ErrorAction SilentlyContinue; if ($h) { $h.Hash } else { $null }`,
});
/** Stops the kubelet if it exists and runs: the files it holds open are replaced only then. */
const STOP_KUBELET = 'if (Get-Service -Name kubelet -ErrorAction SilentlyContinue) { Stop-Service -Name kubelet -Force -ErrorAction Stop }';

export function serviceCommandLine(node: string): string {
  return [
    KUBELET_EXE,
    '--windows-service',
    `--config=${KUBELET_CONFIG}`,
    `--bootstrap-kubeconfig=${BOOTSTRAP_KUBECONFIG}`,
    `--kubeconfig=${KUBE_DIR}\\kubeconfig`,
    `--cert-dir=${KUBE_DIR}\\pki`,
    `--hostname-override=${node}`,
  ].join(' ');
}

export function bootstrapKubeconfig(input: KubeletInput): string {
  const ca = Buffer.from(input.caData).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: kubernetes',
    '  cluster:',
    `    server: ${input.apiServer}`,
    `    certificate-authority-data: ${ca}`,
    'users:',
    '- name: kubelet-bootstrap',
    '  user:',
    `    token: ${input.bootstrapToken}`,
    'contexts:',
    '- name: bootstrap',
    '  context: { cluster: kubernetes, user: kubelet-bootstrap }',
    'current-context: bootstrap',
    '',
  ].join('\n');
}

export function kubeletConfiguration(input: KubeletInput): string {
  return [
    'apiVersion: kubelet.config.k8s.io/v1beta1',
    'kind: KubeletConfiguration',
    `containerRuntimeEndpoint: ${RUNTIME_ENDPOINT}`,
    'clusterDNS:',
    `- ${input.clusterDns}`,
    `clusterDomain: ${input.clusterDomain}`,
    'cgroupsPerQOS: false',
    'enforceNodeAllocatable: []',
    'rotateCertificates: true',
    'serverTLSBootstrap: true',
    'authentication:',
    '  x509:',
    `    clientCAFile: ${CLUSTER_CA}`,
    '',
  ].join('\n');
}

function runtime(): Resource {
  return {
    name: 'kubelet/runtime',
    facts: [{ id: 'k8s.runtime', ps: serviceStatus(RUNTIME_SERVICE) }],
    test: (facts) => compare({ [RUNTIME_SERVICE]: [facts.get('k8s.runtime') ?? null, 'Running'] }),
    async set({ exec, facts, signal }) {
      if (facts.get('k8s.runtime') == null)
        throw errors.GC_RUNTIME_MISSING(
          `the container runtime is not installed (no ${RUNTIME_SERVICE} service): install containerd on the node first; groundcrew does not install it`,
        );
      return setByCommand(exec, `Start-Service -Name ${RUNTIME_SERVICE}`, `start ${RUNTIME_SERVICE}`, { signal });
    },
  };
}

function binary(input: KubeletInput): Resource {
  const wanted = 'sha256' in input.binary ? input.binary.sha256 : `kubelet.exe ${input.version} (not on the control host)`;
  return {
    name: 'kubelet/binary',
    facts: [hashFact('k8s.binary', KUBELET_EXE)],
    test: (facts) => compare({ [`kubelet.exe ${input.version} (SHA-256)`]: [facts.get('k8s.binary') ?? null, wanted] }),
    async set({ exec, signal }) {
      if ('missing' in input.binary)
        throw errors.GC_ARTIFACT_MISSING(`kubelet.exe ${input.version} is not on the control host: ${input.binary.missing}`);
      const bytes = await input.binary.read();
      if (sha256(bytes) !== input.binary.sha256)
        throw errors.GC_ARTIFACT_MISSING(`kubelet.exe ${input.version} changed on the control host while it was copied`);
      // Copied beside the running one first (bytes base64 on stdin), then swapped in with the service stopped.
      return setByCommand(
        exec,
        [
          `New-Item -ItemType Directory -Force -Path ${psQuote(KUBE_DIR)} | Out-Null`,
          writeFromStdin(`${KUBELET_EXE}.new`),
          STOP_KUBELET,
          `Move-Item -Force -Path ${psQuote(`${KUBELET_EXE}.new`)} -Destination ${psQuote(KUBELET_EXE)}`,
        ].join('\n'),
        `copy kubelet.exe ${input.version}`,
        { stdin: stdinOf(bytes), signal },
      );
    },
  };
}

/** A file the kubelet reads, compared by hash (the bootstrap kubeconfig holds a token: never read back). */
function file(name: string, path: string, content: string, missing?: string): Resource {
  const id = `k8s.${name}`;
  return {
    name: `kubelet/${name}`,
    facts: [hashFact(id, path)],
    test: (facts) => compare({ [`${path} (SHA-256)`]: [facts.get(id) ?? null, sha256(content)] }),
    async set({ exec, signal }) {
      if (missing) throw errors.GC_KUBERNETES_CONFIG(`${path}: ${missing}`);
      return setByCommand(
        exec,
        [`New-Item -ItemType Directory -Force -Path ${psQuote(KUBE_DIR)} | Out-Null`, STOP_KUBELET, writeFromStdin(path)].join('\n'),
        `write ${path}`,
        { stdin: stdinOf(content), signal },
      );
    },
  };
}

function service(node: string): Resource {
  const commandLine = serviceCommandLine(node);
  const read = (facts: Facts) => ({ config: parseScQc(facts.get('k8s.qc')), failure: parseScFailure(facts.get('k8s.qfailure')) });
  return {
    name: 'kubelet/service',
    facts: [
      { id: 'k8s.qc', ps: '@(sc.exe qc kubelet)' },
      { id: 'k8s.qfailure', ps: '@(sc.exe qfailure kubelet)' },
    ],
    test: (facts) => {
      const { config, failure } = read(facts);
      return compare({
        BinaryPath: [config?.binaryPath ?? null, commandLine],
        StartType: [config?.startType ?? null, 'AUTO_START'],
        DependsOn: [config?.dependencies ?? null, [RUNTIME_SERVICE]],
        FailureActions: [failure?.actions ?? null, FAILURE_ACTIONS],
      });
    },
    async set({ exec, facts, signal }) {
      const { config } = read(facts);
      const create = config
        ? [STOP_KUBELET, `sc.exe config kubelet binPath= ${psQuote(commandLine)} start= auto depend= ${RUNTIME_SERVICE}`]
        : [
            `New-Service -Name kubelet -DisplayName kubelet -BinaryPathName ${psQuote(commandLine)} -StartupType Automatic -DependsOn ${RUNTIME_SERVICE} | Out-Null`,
          ];
      return setByCommand(
        exec,
        [
          ...create,
          'if ($LASTEXITCODE -and $LASTEXITCODE -ne 0) { exit $LASTEXITCODE }',
          `sc.exe failure kubelet reset= 86400 actions= ${FAILURE_ACTIONS}`,
          'exit $LASTEXITCODE',
        ].join('\n'),
        config ? 'update the kubelet service' : 'create the kubelet service',
        { signal },
      );
    },
  };
}

function running(input: KubeletInput): Resource {
  return {
    name: 'kubelet/running',
    facts: [
      { id: 'k8s.status', ps: serviceStatus('kubelet') },
      {
        id: 'k8s.version',
        ps: `if (Test-Path -Path ${psQuote(KUBELET_EXE)}) { @(& ${psQuote(KUBELET_EXE)} --version) -join ' ' } else { $null }`,
      },
    ],
    test: (facts) =>
      compare({
        Status: [facts.get('k8s.status') ?? null, 'Running'],
        Version: [facts.get('k8s.version') ?? null, `Kubernetes v${input.version.replace(/^v/, '')}`],
      }),
    async set({ exec, signal }) {
      return setByCommand(exec, 'Start-Service -Name kubelet', 'start kubelet', { signal });
    },
  };
}

/** What the bootstrap kubeconfig cannot be written without. */
function unset(input: KubeletInput): string | undefined {
  const missing = [
    ...(input.bootstrapToken ? [] : ["KUBERNETES_BOOTSTRAP_TOKEN (in the daemon's secrets file)"]),
    ...(input.caData ? [] : ['KUBERNETES_CA_DATA']),
    ...(/^https:\/\/:/.test(input.apiServer) ? ['KUBERNETES_API_SERVER (or a k8s_master instance)'] : []),
  ];
  return missing.length > 0 ? `not set: ${missing.join(', ')}` : undefined;
}

export function windowsKubelet(input: KubeletInput, node: string): Phase {
  return {
    name: 'kubelet',
    resources: [
      runtime(),
      binary(input),
      file('bootstrap-kubeconfig', BOOTSTRAP_KUBECONFIG, bootstrapKubeconfig(input), unset(input)),
      file('config', KUBELET_CONFIG, kubeletConfiguration(input)),
      file('ca', CLUSTER_CA, input.caData, input.caData ? undefined : 'KUBERNETES_CA_DATA (the cluster CA, PEM) is not set'),
      service(node),
      running(input),
    ],
  };
}
