// The one registry of groundcrew's error codes (fastify's FST_ERR_* style): each code, whether a retry can
// help, what it means and what the operator should do. docs/errors.md's table is generated from it
// (npm run docs:errors), and the node page's "what to do" reads it. Call sites raise `errors.GC_X(message)`:
// no code is written anywhere else.

export interface ErrorSpec {
  /** Backing off and trying again can help (the node machine goes to backoff rather than stalled). */
  retryable: boolean;
  /** When a retryable error is retried, if not at the next backoff: shown in docs/errors.md. */
  retried?: string;
  /** What it means, for the operator (Markdown). */
  meaning: string;
  /** What to do about it (Markdown). */
  todo: string;
}

export const ERROR_REGISTRY = {
  // The inventory (inventory/)
  GC_INVENTORY_NOT_FOUND: {
    retryable: false,
    meaning: 'the path given has no `instances.yaml` (or does not exist)',
    todo: 'point at the inventory repo directory, or at an `instances.yaml` file',
  },
  // Node access (dataplane/)
  // Whatever the transport (SSH, the simulator's bridge): the node machine counts it toward unreachable.
  GC_CONNECT: {
    retryable: true,
    meaning: "the node did not accept a connection (TCP, SSH, or the simulator's bridge): down, rebooting, unreachable",
    todo: 'check the node is up and its address in `instances.yaml`; groundcrew backs off and retries',
  },
  GC_SSH_AUTH: {
    retryable: false,
    meaning: 'the node refused the credentials',
    todo: 'fix the user, key file or password (secrets file, or `provider_config`), then `groundcrew reconcile NODE`',
  },
  GC_SSH_HOSTKEY_MISMATCH: {
    retryable: false,
    meaning: "the node's host key is not the one pinned on first use; the message names both fingerprints",
    todo: 'if the node was reinstalled, check the new fingerprint out of band (`ssh-keygen -lf` on the node) and pin it with `groundcrew hosts trust NODE --fingerprint SHA256:…`; otherwise treat it as an attack',
  },
  GC_SSH_PINS_UNREADABLE: {
    retryable: false,
    meaning:
      'the host key pin file (`known-hosts.json` in the state directory) cannot be read or parsed: groundcrew refuses SSH to every node rather than trust whatever keys they present now, and leaves the file as it is',
    todo: 'restore `known-hosts.json` from a backup; or move it aside and re-pin each node with `groundcrew hosts trust NODE --fingerprint SHA256:…` after checking its key out of band; then `groundcrew reconcile`',
  },
  GC_CONNECTION_LOST: {
    retryable: true,
    meaning: 'the connection dropped while a command ran; its outcome is unknown',
    todo: "nothing: the next pass reads the node's state again before acting",
  },
  GC_COMMAND_TIMEOUT: {
    retryable: true,
    meaning: 'a command ran past its limit; groundcrew ended it (the whole process group on Linux)',
    todo: 'a slow node or a stuck command: look at the node; raise the timeout if it is only slow',
  },
  GC_COMMAND_ABORTED: {
    retryable: false,
    meaning: 'groundcrew cancelled a command (a newer revision arrived, or it is shutting down)',
    todo: 'nothing',
  },
  GC_COMMAND_TOO_LONG: {
    retryable: false,
    meaning: 'a PowerShell script does not fit on a Windows command line (32,767 characters)',
    todo: 'a bug in groundcrew: report it with the role and phase',
  },
  GC_UNSAFE_VALUE: {
    retryable: false,
    meaning:
      'a value for a command holds a NUL byte, which no shell string can carry; or a value for a config or env file on a node holds a control character (a line break would add a line of its own)',
    todo: 'remove the character from the inventory value (groundcrew validate names where it is)',
  },
  GC_NATIVE_UNAVAILABLE: {
    retryable: false,
    meaning: 'a native library groundcrew uses is missing (libsystemd for `Type=notify`)',
    todo: 'install what the message names, or run without that feature',
  },
  // Roles: commands on the node (roles/)
  GC_MSI_FAILED: {
    retryable: false,
    meaning: "an MSI install or uninstall failed (1603 and others); the message ends with the MSI log's last lines",
    todo: 'read those lines (often: certificate not trusted, or test signing not active), fix, then `groundcrew reconcile NODE`',
  },
  GC_NOT_ELEVATED: {
    retryable: false,
    meaning: 'the session on a Windows node has no elevated token: bcdedit and feature installs are refused',
    todo: "connect as a member of Administrators with UAC's remote token filtering off (LocalAccountTokenFilterPolicy=1), or as the built-in Administrator; then `groundcrew reconcile NODE`",
  },
  GC_ADAPTER_MISSING: {
    retryable: false,
    meaning:
      'an adapter the inventory names for a Windows node (`WINDOWS_PHYSICAL_INTERFACE`, `overlay_interface`) is not one the node has (Get-NetAdapter); found in prereqs, before anything is changed',
    todo: "name one of the adapters the message lists (in `instances.yaml`, the instance's own `contrail_configuration`, or `nodes/NODE.yaml`), or give the adapter that name on the node (`Rename-NetAdapter`); then `groundcrew reconcile NODE`",
  },
  GC_SECURE_BOOT: {
    retryable: false,
    meaning: 'test signing is wanted but UEFI Secure Boot is on: Windows refuses testsigning under Secure Boot',
    todo: "turn Secure Boot off in the node's firmware, or use a production-signed vRouter (WINDOWS_USE_SIGNED_VROUTER); then `groundcrew reconcile NODE`",
  },
  GC_MSI_BUSY: {
    retryable: true,
    meaning: 'another MSI install was running on the node (1618)',
    todo: 'nothing, unless it persists: then look for a stuck msiexec on the node',
  },
  GC_FACTS_FAILED: {
    retryable: true,
    meaning: "the script that reads a phase's facts failed or answered something unreadable",
    todo: 'look at the node; the message has the first line of its error',
  },
  GC_SET_FAILED: {
    retryable: false,
    meaning: 'a command that changes the node failed',
    todo: 'the message has what the node said',
  },
  GC_STILL_DIFFERENT: {
    retryable: false,
    meaning: 'a resource still differs after it was set (or a check of the verify phase failed)',
    todo: 'something on the node undoes the change, or the component is broken: look at the named properties',
  },
  GC_KEYSTONE_UNAVAILABLE: {
    retryable: true,
    meaning: 'Keystone did not answer from the node',
    todo: 'check that the Keystone host is up and reachable from the node',
  },
  GC_KEYSTONE_AUTH: {
    retryable: false,
    meaning: 'Keystone refused the configured credentials (401)',
    todo: 'fix `KEYSTONE_AUTH_ADMIN_PASSWORD` (or the secrets file)',
  },
  GC_NOVA_API_UNAVAILABLE: {
    retryable: true,
    meaning:
      "the OpenStack controller's nova-api (deployed by kolla-ansible, not groundcrew) did not answer its version list from a compute",
    todo: 'check that kolla-ansible deployed the controller and that port 8774 of the Keystone host is reachable from the node',
  },
  GC_RUNTIME_MISSING: {
    retryable: false,
    meaning: 'a `k8s_node` Windows node has no containerd service: the kubelet needs a container runtime',
    todo: 'install containerd on the node (groundcrew checks for it, never installs it); the next pass carries on',
  },
  GC_ARTIFACT_MISSING: {
    retryable: false,
    meaning: 'the `kubelet.exe` of the desired Kubernetes version is not on the control host',
    todo: 'put it at `<kubernetes.binaries>/<version>/kubelet.exe` (default `<stateDir>/kubernetes`), then `groundcrew reconcile NODE`',
  },
  GC_KUBERNETES_CONFIG: {
    retryable: false,
    meaning:
      "a `k8s_node` Windows node's bootstrap kubeconfig or cluster CA cannot be written: `KUBERNETES_BOOTSTRAP_TOKEN`, `KUBERNETES_CA_DATA` or the API server is not set",
    todo: "put the token (and CA) in the daemon's `secretsFile`; the next revision or `groundcrew reconcile NODE` carries on",
  },
  GC_CONFIG_API: {
    retryable: true,
    meaning: 'the Contrail config API did not accept the virtual router',
    todo: 'check the config API on the controllers',
  },
  // The node machine (state-machines/) and the reconciler (reconciler/)
  GC_REBOOT_LOOP: {
    retryable: false,
    meaning: 'a phase asked for a reboot again after its reboot in the same revision, or the revision used up its reboot cap',
    todo: 'something on the node undoes the change (or a resource fails after its reboot): look at the phase named; no further reboot is taken for this revision',
  },
  GC_REBOOT_TIMEOUT: {
    retryable: true,
    retried: 'retried at resync',
    meaning: 'the node did not come back with a new boot id in time after a reboot; the node is unreachable',
    todo: 'bring the node back; the next resync or `groundcrew reconcile NODE` carries on without a second reboot',
  },
  GC_GATE_CLOSED: {
    retryable: true,
    meaning: "the node's `openstack` phase waits for the node that hosts Keystone to be verified",
    todo: 'nothing: it starts as soon as that node is verified; if that node is stalled, fix it first',
  },
  GC_GATE_FAILED: {
    retryable: false,
    meaning: 'the node it waits for (the Keystone host) is stalled or unreachable',
    todo: 'fix that node; this one carries on by itself once it is verified',
  },
  GC_DECONFIGURE_FAILED: {
    retryable: false,
    meaning: 'a node removed from the inventory with `removalPolicy: deconfigure` could not be cleaned',
    todo: 'the message says which step failed; clean by hand or put the node back',
  },
  GC_SNAPSHOT_WRITE: {
    retryable: true,
    meaning:
      "the node's state could not be written to the state directory (`snapshots/`): full disk, permissions, I/O error; no command goes to the node until it is, so a crash cannot lose what a command depends on",
    todo: 'check the state directory (free space, permissions, `dmesg` for I/O errors); the node carries on by itself once a write succeeds',
  },
  GC_STATE_UNSAFE: {
    retryable: false,
    meaning:
      "a directory groundcrew keeps its state or runtime files in is a symbolic link, not a directory, or belongs to another user: something else could plant or read what groundcrew trusts there (snapshots, pins, the last good revision, the API token's record)",
    todo: 'make it a directory owned by the user groundcrew runs as (`install -d -m 0700 -o groundcrew DIR`), or point `stateDir` elsewhere; groundcrew tightens a loose mode itself',
  },
  // Sources and revision intake (source/, reconciler/intake)
  GC_GIT_FETCH: {
    retryable: true,
    retried: 'retried with backoff: the poll interval, doubled after each failure up to 5 minutes',
    meaning: 'the Git remote could not be cloned or fetched (unreachable, refused, an unknown host key, a proxy); `/readyz` says why',
    todo: "check the repo URL, the branch, the deploy key and the server's host key in known_hosts, the proxy variables (docs/operations.md, The Git source); the daemon stays on the last revision it has",
  },
  GC_REVISION_REJECTED: {
    retryable: false,
    meaning: 'a commit failed validation; every problem is listed as `file:line:col` on the status page and in `/api/revisions`',
    todo: 'fix the lines listed and push; nodes stay on the last good revision meanwhile',
  },
  // Notifications (notifications/)
  GC_NOTIFY_FAILED: {
    retryable: true,
    retried:
      "after no answer, 408, 429 or 5xx, with backoff (or the sink's Retry-After), up to the sink's `retries`; then the notification is dropped. Another 4xx, or a redirect to another origin, is not retried",
    meaning:
      "a notification sink (webhook, Slack, Teams, a Git host's commit status API) did not answer 2xx in time; reconciliation goes on regardless",
    todo: 'read the log line (sink, status, body); check the URL, the token or secret file, and the sink\'s permissions; `groundcrew_notifications_total{result="failed"}` counts them',
  },
  // Cluster mode (cluster/)
  GC_CLUSTER_FENCED: {
    retryable: true,
    retried: 'by the member that owns the node once it does',
    meaning:
      'this member may not change the node: it does not own it, or it has not renewed its etcd lease within half the lease TTL (etcd unreachable or without quorum, or the process was paused); the command was not sent',
    todo: 'nothing if another member took the node over; otherwise check etcd (`etcdctl endpoint health`) and `groundcrew cluster status`',
  },
  GC_CLUSTER_AUTH: {
    retryable: false,
    meaning:
      "etcd refused this member's credentials (`cluster.etcd.auth`: the user or the password in its file), or the user's role may not read and write the cluster's prefix; the daemon does not start",
    todo: 'check the user and its password file; `etcdctl user get USER` and `etcdctl role get ROLE` show its role and the prefix it may use (docs/operations.md, High availability)',
  },
  // Anything else
  GC_INTERNAL: {
    retryable: false,
    meaning: 'an error without a code of its own reached the node machine',
    todo: 'a bug in groundcrew: report it with the message',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export class GroundcrewError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /**
   * On the error a command failed with, whether the command left for the node (`markSent`): false when it
   * provably never did (no connection, refused before a byte of it was written, cancelled first), so nothing on
   * the node happened because of it; true when it did or may have (the answer was lost: the outcome is unknown).
   * Undefined on an error that is not a command's.
   */
  sent: boolean | undefined;

  constructor(code: ErrorCode, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'GroundcrewError';
    this.code = code;
    this.retryable = ERROR_REGISTRY[code].retryable;
  }
}

/** Says whether the command that failed with `error` left for the node; returns the same error, to throw. */
export function markSent<E extends GroundcrewError>(error: E, sent: boolean): E {
  error.sent = sent;
  return error;
}

/**
 * Whether `error` is a command's that provably never reached the node. Anything else (an error of unknown
 * origin included) may have reached it: a caller that must not repeat a command treats it as sent.
 */
export function neverSent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { sent?: unknown }).sent === false;
}

/** Raises one code: `throw errors.GC_SET_FAILED(\`${label} failed\`, cause)`; `.code` names it in comparisons. */
export type Raise = ((message: string, cause?: unknown) => GroundcrewError) & { readonly code: ErrorCode };

export const errors = Object.fromEntries(
  (Object.keys(ERROR_REGISTRY) as ErrorCode[]).map((code) => [
    code,
    Object.assign((message: string, cause?: unknown) => new GroundcrewError(code, message, cause), { code }),
  ]),
) as { readonly [K in ErrorCode]: Raise };

/** The registry's entry for a code read from outside (a snapshot, a status record); none for unknown text. */
export function errorSpec(code: string): ErrorSpec | undefined {
  return Object.hasOwn(ERROR_REGISTRY, code) ? ERROR_REGISTRY[code as ErrorCode] : undefined;
}
