// The daemon's own config (`groundcrew run --config FILE`): where the repo is, where state lives, how to
// reach nodes. Every key can also come from the environment: source.pollInterval is GROUNDCREW_SOURCE_POLL_INTERVAL.

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import type { Diagnostic } from '../inventory/diagnostic.js';
import { checkShape, rootMap } from '../inventory/shape.js';
import { YamlSource } from '../inventory/yaml-source.js';
import { branchNameProblem } from '../source/branch-name.js';
import type { SignaturePolicy } from '../source/commit-signatures.js';
import { gitCredentialProblem } from '../source/git-credential.js';
import { sshPathProblem } from '../source/git-environment.js';
import { fileProblemWords } from './file-problem.js';
import { NotificationsSchema } from './notifications-config.js';

/** "90s", "10m", "1h", "250ms", or a number of seconds. */
const Duration = z.union([z.number().nonnegative(), z.string().regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'a duration such as 30s, 10m or 1h')]);

const SecretRef = z.strictObject({ secretFile: z.string() });
const Transport = z.enum(['ssh', 'sim']);

export const DaemonConfigSchema = z.strictObject({
  source: z.strictObject({
    url: z.string().optional(),
    path: z.string().optional(),
    branch: z
      .string()
      .superRefine((name, ctx) => {
        const problem = branchNameProblem(name);
        if (problem) ctx.addIssue({ code: 'custom', message: `not a branch name Git can have: ${problem}` });
      })
      .default('main'),
    dir: z.string().default('.'),
    pollInterval: Duration.default('60s'),
    /** A read-only deploy key for an ssh:// or scp-like URL, and the file of the Git server's host keys (docs/operations.md). */
    sshKeyFile: z.string().optional(),
    knownHostsFile: z.string().optional(),
    /** Only commits signed by an allowed key are applied: a GPG keyring, an SSH allowed-signers file, or both. */
    verify: z
      .strictObject({
        gpg: z.strictObject({ keyring: z.string() }).optional(),
        ssh: z.strictObject({ allowedSigners: z.string() }).optional(),
        allCommits: z.boolean().default(false),
      })
      .optional(),
  }),
  stateDir: z.string().default('/var/lib/groundcrew'),
  listen: z.string().default('127.0.0.1:7070'),
  /** Host names the daemon answers to besides its listen address (and loopback names on a loopback bind). */
  server: z.strictObject({ hosts: z.array(z.string()).default([]) }).default({ hosts: [] }),
  apiTokenFile: z.string().optional(),
  webhooks: z
    .strictObject({
      github: SecretRef.optional(),
      gitlab: SecretRef.optional(),
      gitea: SecretRef.optional(),
      generic: SecretRef.optional(),
    })
    .default({}),
  /** KEY: value pairs that win over the repo's configuration (Kubernetes bootstrap token, CA, passwords). */
  secretsFile: z.string().optional(),
  kubernetes: z.strictObject({ binaries: z.string().optional() }).default({}),
  transport: Transport.default('ssh'),
  nodes: z.record(z.string(), z.strictObject({ transport: Transport.optional() })).default({}),
  ssh: z
    .strictObject({
      user: z.string().optional(),
      keyFile: z.string().optional(),
      windowsUser: z.string().optional(),
      windowsKeyFile: z.string().optional(),
      port: z.number().int().min(1).max(65535).default(22),
      maxConnections: z.number().int().min(1).default(256),
    })
    .default({ port: 22, maxConnections: 256 }),
  sim: z
    .strictObject({
      rebootSeconds: z.number().nonnegative().default(2),
      latencyMs: z.number().nonnegative().default(20),
      // The simulated hosts in a process of their own (sim/transports/host-worker.ts), not in the daemon's.
      ownProcess: z.boolean().default(false),
      // A host process already running (host-worker.ts): several daemons drive the same simulated hosts, as
      // cluster members share real ones (the HA benchmark). Wins over ownProcess; its hosts
      // reboot for as long as that process was told (rebootSeconds is not read).
      socket: z.string().optional(),
      // Registries the rehearsal cannot reach (by name: docker.io, registry.example.com:5000): a pull fails as Docker's
      // lookup does. Every other registry a node names is served, with the versions the nodes pin.
      unreachableRegistries: z.array(z.string().min(1)).default([]),
    })
    .default({ rebootSeconds: 2, latencyMs: 20, ownProcess: false, unreachableRegistries: [] }),
  workers: z.number().int().min(1).default(32),
  resyncInterval: Duration.default('10m'),
  reboot: z
    .strictObject({ timeout: Duration.default('15m'), settle: Duration.default('10s'), poll: Duration.default('2s') })
    .default({ timeout: '15m', settle: '10s', poll: '2s' }),
  /** Cluster mode (docs/operations.md, High availability): several daemons share the nodes through etcd. */
  cluster: z
    .strictObject({
      /** This daemon's name among the members: unique, stable across restarts. */
      member: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'letters, digits, dot, dash or underscore'),
      /** How long a member that stops renewing keeps its nodes: it stops issuing commands at half of it. */
      leaseTtl: Duration.default('10s'),
      /** Every key of this cluster starts with it: several clusters may share one etcd. */
      prefix: z.string().default('/groundcrew/'),
      /** Newly owned nodes that start driving per second (and at most at once); `workers` when not set. */
      startRate: z.number().int().min(1).optional(),
      etcd: z.strictObject({
        endpoints: z.array(z.string()).min(1),
        tls: z.strictObject({ ca: z.string(), cert: z.string().optional(), key: z.string().optional() }).optional(),
        /** etcd's username/password auth (docs/operations.md, High availability): the password in a file of its own. */
        auth: z.strictObject({ username: z.string().min(1), passwordFile: z.string() }).optional(),
      }),
    })
    .optional(),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error']).default('info'),
      /** auto: `journal` (a syslog priority before each JSON line) under systemd's journal, `pretty` on a terminal, else `json`. */
      format: z.enum(['auto', 'json', 'journal', 'pretty']).default('auto'),
    })
    .default({ level: 'info', format: 'auto' }),
  /** Where events go: webhooks, Slack, Teams, commit statuses (docs/notifications-and-alerting.md). */
  notifications: NotificationsSchema,
});

export type DaemonConfig = z.infer<typeof DaemonConfigSchema>;

export function durationMs(value: number | string): number {
  if (typeof value === 'number') return value * 1000;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value);
  if (!m) throw new Error(`not a duration: ${value}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  return Number(m[1]) * unit;
}

const snake = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

/** Leaf keys of the schema, as paths: source.pollInterval, ssh.port, webhooks.github.secretFile, ... */
function leafPaths(schema: z.ZodType, base: string[] = []): string[][] {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodOptional) inner = inner.unwrap() as z.ZodType;
  if (inner instanceof z.ZodObject) return Object.entries(inner.shape).flatMap(([k, v]) => leafPaths(v as z.ZodType, [...base, k]));
  return [base];
}

function numberish(path: string[]): boolean {
  return ['port', 'maxConnections', 'workers', 'rebootSeconds', 'latencyMs'].includes(path.at(-1) ?? '');
}

/** The schema of one leaf key. */
function leafSchema(path: string[]): z.ZodType {
  let node: z.ZodType = DaemonConfigSchema;
  for (const key of path) {
    while (node instanceof z.ZodDefault || node instanceof z.ZodOptional) node = node.unwrap() as z.ZodType;
    node = (node as z.ZodObject).shape[key] as z.ZodType;
  }
  return node;
}

/**
 * GROUNDCREW_* variables over the file's values (the environment wins, as systemd drop-ins expect). A value its key
 * cannot take is an error naming the variable, not a place in the file it never came from.
 */
function applyEnv(data: Record<string, unknown>, env: NodeJS.ProcessEnv, errors: Diagnostic[]): void {
  for (const path of leafPaths(DaemonConfigSchema)) {
    const name = `GROUNDCREW_${path.map(snake).join('_')}`;
    const value = env[name];
    if (value === undefined) continue;
    let at = data;
    for (const key of path.slice(0, -1)) {
      at[key] ??= {};
      at = at[key] as Record<string, unknown>;
    }
    at[path.at(-1) as string] =
      path.at(-1) === 'hosts' || path.at(-1) === 'endpoints'
        ? value
            .split(',')
            .map((h) => h.trim())
            .filter(Boolean)
        : numberish(path) && /^\d+(\.\d+)?$/.test(value)
          ? Number(value)
          : value;
    const checked = leafSchema(path).safeParse(at[path.at(-1) as string]);
    if (!checked.success) {
      const why = checked.error.issues[0]?.message ?? 'not a valid value';
      errors.push({
        file: name,
        line: 0,
        col: 0,
        severity: 'error',
        message: `${JSON.stringify(value)} is not a valid ${path.join('.')}: ${why}`,
      });
    }
  }
}

function knownKeys(path: readonly (string | number)[]): readonly string[] {
  let node: z.ZodType = DaemonConfigSchema;
  for (const key of path) {
    while (node instanceof z.ZodDefault || node instanceof z.ZodOptional) node = node.unwrap() as z.ZodType;
    if (!(node instanceof z.ZodObject)) return [];
    node = node.shape[key as string] as z.ZodType;
    if (!node) return [];
  }
  while (node instanceof z.ZodDefault || node instanceof z.ZodOptional) node = node.unwrap() as z.ZodType;
  return node instanceof z.ZodObject ? Object.keys(node.shape) : [];
}

export type ConfigResult = { ok: true; config: DaemonConfig } | { ok: false; errors: Diagnostic[] };

/** Reads and checks the config; relative paths in it are taken from the config file's directory. */
export function loadDaemonConfig(file: string, env: NodeJS.ProcessEnv = process.env): ConfigResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const words = fileProblemWords(err) ?? (err as Error).message;
    const why =
      code === 'ENOENT'
        ? `${words} (give --config FILE or GROUNDCREW_CONFIG; systemd/groundcrew.example.yaml is a start)`
        : code === 'EISDIR'
          ? 'a directory, not a config file'
          : words;
    return { ok: false, errors: [{ file, line: 0, col: 0, severity: 'error', message: why }] };
  }
  const src = new YamlSource(file, text);
  const errors: Diagnostic[] = [...src.syntaxErrors()];
  if (errors.length > 0) return { ok: false, errors };
  const root = rootMap(src, errors, 'empty', 'a map of daemon settings');
  if (!root) return { ok: false, errors };
  applyEnv(root, env, errors);
  if (errors.length > 0) return { ok: false, errors };
  const config = checkShape(src, DaemonConfigSchema, root, knownKeys, errors);
  if (!config || errors.length > 0) return { ok: false, errors };
  if (!config.source.url === !config.source.path) {
    errors.push(src.diagnostic(['source'], 'error', 'source: give either url (a Git remote) or path (a local working copy), not both'));
    return { ok: false, errors };
  }
  const verify = config.source.verify;
  if (verify && !verify.gpg && !verify.ssh) {
    errors.push(src.diagnostic(['source', 'verify'], 'error', 'source.verify: give gpg.keyring, ssh.allowedSigners, or both'));
    return { ok: false, errors };
  }
  if (verify && config.source.path) {
    errors.push(
      src.diagnostic(['source', 'verify'], 'error', 'source.verify needs a Git source (url): a working copy has no commits to check'),
    );
    return { ok: false, errors };
  }
  const base = dirname(resolve(file));
  const abs = (p: string | undefined) => (p === undefined || isAbsolute(p) ? p : resolve(base, p));
  const c = structuredClone(config);
  c.stateDir = abs(c.stateDir) as string;
  if (c.source.path) c.source.path = abs(c.source.path);
  if (c.source.url && !/^[a-z+]+:\/\//.test(c.source.url) && !/^[\w.-]+@[\w.-]+:/.test(c.source.url)) c.source.url = abs(c.source.url);
  c.source.sshKeyFile = abs(c.source.sshKeyFile);
  c.source.knownHostsFile = abs(c.source.knownHostsFile);
  for (const key of ['sshKeyFile', 'knownHostsFile'] as const) {
    const path = c.source[key];
    const problem = path === undefined ? undefined : sshPathProblem(path);
    if (problem) errors.push(src.diagnostic(['source', key], 'error', `source.${key}: ${problem}`));
  }
  const credential = c.source.url === undefined ? undefined : gitCredentialProblem(c.source.url);
  if (credential) errors.push(src.diagnostic(['source', 'url'], 'error', `source.url: ${credential}`));
  if (errors.length > 0) return { ok: false, errors };
  if (c.apiTokenFile) c.apiTokenFile = abs(c.apiTokenFile);
  for (const hook of Object.values(c.webhooks)) if (hook) hook.secretFile = abs(hook.secretFile) as string;
  c.ssh.keyFile = abs(c.ssh.keyFile);
  c.ssh.windowsKeyFile = abs(c.ssh.windowsKeyFile);
  if (c.secretsFile) c.secretsFile = abs(c.secretsFile);
  if (c.source.verify?.gpg) c.source.verify.gpg.keyring = abs(c.source.verify.gpg.keyring) as string;
  if (c.source.verify?.ssh) c.source.verify.ssh.allowedSigners = abs(c.source.verify.ssh.allowedSigners) as string;
  if (c.sim.socket) c.sim.socket = abs(c.sim.socket);
  if (c.kubernetes.binaries) c.kubernetes.binaries = abs(c.kubernetes.binaries);
  for (const sink of c.notifications.sinks) {
    sink.urlFile = abs(sink.urlFile);
    sink.secretFile = abs(sink.secretFile);
    sink.tokenFile = abs(sink.tokenFile);
  }
  const tls = c.cluster?.etcd.tls;
  if (tls) Object.assign(tls, { ca: abs(tls.ca), cert: abs(tls.cert), key: abs(tls.key) });
  const auth = c.cluster?.etcd.auth;
  if (auth) auth.passwordFile = abs(auth.passwordFile) as string;
  return { ok: true, config: c };
}

/** The daemon config's source.verify, as the commit verifier takes it. */
export function signaturePolicy(verify: NonNullable<DaemonConfig['source']['verify']>): SignaturePolicy {
  return {
    ...(verify.gpg ? { gpgKeyring: verify.gpg.keyring } : {}),
    ...(verify.ssh ? { sshAllowedSigners: verify.ssh.allowedSigners } : {}),
    allCommits: verify.allCommits,
  };
}
