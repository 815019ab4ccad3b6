// instances.yaml, in the contrail-ansible-deployer format, read into one NodeSpec per instance.

import type { Os } from '../os.js';
import { checkAddresses } from './addresses.js';
import { cnmKeystoneProblem } from './cnm-keystone.js';
import { checkConfigMap, configText, readConfigMap } from './configuration.js';
import type { ConfigValue, Credentials, DesiredVersions, NodeSpec, Provider } from './desired-state.js';
import type { Diagnostic } from './diagnostic.js';
import { closest, didYouMean } from './did-you-mean.js';
import type { NodeFileSettings } from './node-file.js';
import type { RepoSettings } from './repo-file.js';
import { canonicalRole, defaultRoles, KEYSTONE_ROLES, KNOWN_ROLES, ROLE_ALIASES, type Role, runsOn } from './roles.js';
import {
  INSTANCE_KEYS,
  INSTANCES_TOP_KEYS,
  type InstanceEntry,
  InstanceSchema,
  type InstancesFile,
  InstancesFileSchema,
  VERSION_COMPONENTS,
} from './schema.js';
import { Secret } from './secret.js';
import { checkShape, isPlainMap, rootMap } from './shape.js';
import type { Path, YamlSource } from './yaml-source.js';

const PROVIDERS: Record<Provider, Os> = { bms: 'linux', bms_win: 'windows' };
const NODE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;
/** contrail-ansible-deployer's own default registry. */
const DEFAULT_REGISTRY = 'opencontrailnightly';

export interface InstancesContext {
  repo: RepoSettings;
  nodeFiles: ReadonlyMap<string, NodeFileSettings>;
}

interface Shared {
  src: YamlSource;
  ctx: InstancesContext;
  top: InstancesFile;
  base: Record<string, ConfigValue>;
  diags: Diagnostic[];
  /** The node's own settings as written (domainsuffix, credentials), by key: read once per instances.yaml text. */
  settings: Map<string, string | undefined>;
}

/** One node's read, with the inputs beyond instances.yaml it was made from: the same inputs give the same read. */
interface NodeRead {
  nodeFile: NodeFileSettings | undefined;
  repo: RepoSettings;
  node: NodeSpec | undefined;
  diags: Diagnostic[];
  settings: Map<string, string | undefined>;
}

/** What is read once per instances.yaml text: the file-wide parts, and each node's last read. */
interface FileRead {
  top?: InstancesFile;
  base: Record<string, ConfigValue>;
  diags: Diagnostic[];
  nodes: Map<string, NodeRead>;
  addressDiags?: Diagnostic[];
}

/**
 * Every instance as a NodeSpec. `cache` (the parse memo's entry for this text of instances.yaml) keeps each
 * node's read: a node whose node file and groundcrew.yaml are unchanged is not read again.
 */
export function readInstances(src: YamlSource, ctx: InstancesContext, diags: Diagnostic[], cache = new Map<string, unknown>()): NodeSpec[] {
  let file = cache.get('instances') as FileRead | undefined;
  if (!file) {
    file = readFileWide(src);
    cache.set('instances', file);
  }
  diags.push(...file.diags);
  const { top, base } = file;
  if (!top) return [];
  const nodes: NodeSpec[] = [];
  for (const [name, raw] of Object.entries(top.instances)) {
    const nodeFile = ctx.nodeFiles.get(name);
    let read = file.nodes.get(name);
    if (!read || read.nodeFile !== nodeFile || read.repo !== ctx.repo) {
      const own: Diagnostic[] = [];
      // Kept from the last read: a node read again for its node file needs no syntax tree (YamlSource.release).
      const settings = read?.settings ?? new Map<string, string | undefined>();
      read = {
        nodeFile,
        repo: ctx.repo,
        node: readInstance({ src, ctx, top, base, diags: own, settings }, name, raw),
        diags: own,
        settings,
      };
      file.nodes.set(name, read);
    }
    diags.push(...read.diags);
    if (read.node) nodes.push(read.node);
  }
  // Which instances become nodes, and their addresses, come from instances.yaml alone.
  file.addressDiags ??= checkAddresses(src, nodes);
  diags.push(...file.addressDiags);
  return resolveKeystone(src, nodes, diags);
}

function readFileWide(src: YamlSource): FileRead {
  const diags: Diagnostic[] = [];
  const file: FileRead = { base: {}, diags, nodes: new Map() };
  const root = rootMap(src, diags, 'error', 'a map with provider_config and instances');
  if (!root) return file;
  checkTopLevelKeys(src, root, diags);
  const top = checkShape(src, InstancesFileSchema, root, () => INSTANCES_TOP_KEYS, diags);
  if (!top) return file;
  for (const provider of Object.keys(top.provider_config ?? {})) {
    if (!(provider in PROVIDERS)) {
      diags.push(
        src.diagnostic(
          ['provider_config', provider],
          'warning',
          `provider_config.${provider} is ignored: groundcrew manages bms (Linux) and bms_win (Windows) instances`,
          'key',
        ),
      );
    }
  }
  // global_configuration wins over contrail_configuration for its own keys (CONTAINER_REGISTRY may sit in either).
  const contrail = readConfigMap(src, ['contrail_configuration'], top.contrail_configuration);
  const global = readConfigMap(src, ['global_configuration'], top.global_configuration);
  diags.push(...checkConfigMap(src, ['contrail_configuration'], contrail), ...checkConfigMap(src, ['global_configuration'], global));
  return { ...file, top, base: { ...contrail, ...global } };
}

function checkTopLevelKeys(src: YamlSource, root: Record<string, unknown>, diags: Diagnostic[]): void {
  for (const key of Object.keys(root)) {
    if (INSTANCES_TOP_KEYS.includes(key)) continue;
    const hint = closest(key, INSTANCES_TOP_KEYS);
    if (hint) {
      diags.push(src.diagnostic([key], 'error', `unknown top-level key "${key}" (did you mean "${hint}"?)`, 'key'));
    } else if (/^[A-Z][A-Z0-9_]*$/.test(key)) {
      diags.push(
        src.diagnostic(
          [key],
          'warning',
          `top-level key "${key}" is ignored, as contrail-ansible-deployer ignores it; to set it, move it under contrail_configuration`,
          'key',
        ),
      );
    } else {
      diags.push(src.diagnostic([key], 'warning', `top-level key "${key}" is ignored`, 'key'));
    }
  }
}

function readInstance(shared: Shared, name: string, raw: unknown): NodeSpec | undefined {
  const { src, diags } = shared;
  const path = ['instances', name];
  if (!NODE_NAME.test(name)) {
    diags.push(
      src.diagnostic(
        path,
        'error',
        `node name "${name}" must start with a letter or digit and hold only letters, digits, "_", "-" and "." (at most 63): it names files and hosts`,
        'key',
      ),
    );
  }
  if (!isPlainMap(raw)) {
    diags.push(src.diagnostic(path, 'error', `${path.join('.')}: expected a map with provider, ip and roles, found ${src.describe(path)}`));
    return undefined;
  }
  const inst = checkShape(src, InstanceSchema, raw, () => INSTANCE_KEYS, diags, path);
  if (!inst) return undefined;
  if (!(inst.provider in PROVIDERS)) {
    diags.push(
      src.diagnostic(
        [...path, 'provider'],
        'error',
        `provider "${inst.provider}" is not known${didYouMean(inst.provider, Object.keys(PROVIDERS))}: groundcrew manages bms (Linux) and bms_win (Windows) instances`,
      ),
    );
    return undefined;
  }
  const provider = inst.provider as Provider;
  const os = PROVIDERS[provider];

  const instanceConfig = readConfigMap(src, [...path, 'contrail_configuration'], inst.contrail_configuration);
  diags.push(...checkConfigMap(src, [...path, 'contrail_configuration'], instanceConfig));
  const orchestrator = configText({ ...shared.base, ...instanceConfig }, 'CLOUD_ORCHESTRATOR') ?? 'none';
  const { roles, roleConfig, defaulted } = readRoles(src, path, inst, os, orchestrator, diags);
  const nodeFile = shared.ctx.nodeFiles.get(name);
  const configuration = { ...shared.base, ...instanceConfig, ...roleConfig, ...nodeFile?.overrides };

  if (os === 'windows' && roles.includes('vrouter') && configText(configuration, 'WINDOWS_PHYSICAL_INTERFACE') === undefined) {
    diags.push(
      src.diagnostic(
        path,
        'error',
        `node "${name}" runs vrouter on Windows but WINDOWS_PHYSICAL_INTERFACE is not set (the alias of its data-plane adapter, e.g. Ethernet1)`,
        'key',
      ),
    );
  }
  const keystoneProblem = os === 'windows' ? cnmKeystoneProblem(name, roles, configuration) : undefined;
  if (keystoneProblem) diags.push(src.diagnostic(path, 'warning', keystoneProblem, 'key'));
  const providerConfig = shared.top.provider_config?.[provider] ?? {};
  const setting = (key: string): string | undefined => {
    if (shared.settings.has(key)) return shared.settings.get(key);
    const own = src.scalarText([...path, key]);
    const value =
      own ?? src.scalarText(['provider_config', provider, key]) ?? (providerConfig[key] == null ? undefined : String(providerConfig[key]));
    shared.settings.set(key, value);
    return value;
  };
  const suffix = setting('domainsuffix');
  return {
    name,
    address: inst.ip,
    hostname: suffix ? `${name}.${suffix}` : name,
    ...(suffix ? { domainSuffix: suffix } : {}),
    provider,
    os,
    roles,
    rolesDefaulted: defaulted,
    configuration,
    registry: configText(configuration, 'CONTAINER_REGISTRY') ?? DEFAULT_REGISTRY,
    versions: desiredVersions(configuration, shared.ctx.repo, nodeFile),
    mode: nodeFile?.mode ?? shared.ctx.repo.defaultMode,
    paused: nodeFile?.paused ?? false,
    labels: nodeFile?.labels ?? {},
    publishedPorts: nodeFile?.publishedPorts ?? [],
    ...(nodeFile?.overlayInterface ? { overlayInterface: nodeFile.overlayInterface } : {}),
    credentials: credentials(os, setting),
    hostsKeystone: roles.some((r) => KEYSTONE_ROLES.has(r)),
  };
}

function readRoles(src: YamlSource, path: Path, inst: InstanceEntry, os: Os, orchestrator: string, diags: Diagnostic[]) {
  const roleConfig: Record<string, ConfigValue> = {};
  if (inst.roles === undefined || inst.roles === null) {
    return { roles: defaultRoles(os, orchestrator), roleConfig, defaulted: true };
  }
  const rolesPath = [...path, 'roles'];
  const roles: Role[] = [];
  for (const [given, overrides] of Object.entries(inst.roles)) {
    const rolePath = [...rolesPath, given];
    const role = canonicalRole(given);
    if (!role) {
      diags.push(
        src.diagnostic(
          rolePath,
          'error',
          `role "${given}" is not a known role${didYouMean(given, [...KNOWN_ROLES, ...Object.keys(ROLE_ALIASES)])}`,
          'key',
        ),
      );
      continue;
    }
    if (!runsOn(role, os)) {
      const message =
        os === 'windows'
          ? `role "${given}" is Linux-only and cannot run on Windows node "${String(path[1])}" (provider bms_win)`
          : `role "${given}" runs only on Windows (provider bms_win), and node "${String(path[1])}" is Linux (provider bms)`;
      diags.push(src.diagnostic(rolePath, 'error', message, 'key'));
      continue;
    }
    if (roles.includes(role)) {
      diags.push(
        src.diagnostic(rolePath, 'warning', `role "${given}" is given twice (win_docker_driver is the old name of win_cnm_plugin)`, 'key'),
      );
      continue;
    }
    roles.push(role);
    const config = readConfigMap(src, rolePath, overrides);
    diags.push(...checkConfigMap(src, rolePath, config));
    Object.assign(roleConfig, config);
  }
  if (Object.keys(inst.roles).length === 0) {
    diags.push(
      src.diagnostic(
        rolesPath,
        'error',
        `roles of "${String(path[1])}" is an empty map: list at least one role, or remove the key to give the node every role`,
        'key',
      ),
    );
  }
  if (roles.includes('win_cnm_plugin') && !roles.includes('vrouter')) {
    diags.push(
      src.diagnostic(
        rolesPath,
        'error',
        `node "${String(path[1])}" has win_cnm_plugin without vrouter: the docker driver needs the vRouter on the same node`,
        'key',
      ),
    );
  }
  return { roles, roleConfig, defaulted: false };
}

function desiredVersions(
  configuration: Record<string, ConfigValue>,
  repo: RepoSettings,
  nodeFile: NodeFileSettings | undefined,
): DesiredVersions {
  const fromConfig = configText(configuration, 'CONTRAIL_VERSION');
  const contrail =
    nodeFile?.versions.contrail !== undefined
      ? { version: nodeFile.versions.contrail, source: nodeFile.file }
      : fromConfig !== undefined
        ? { version: fromConfig, source: 'CONTRAIL_VERSION' }
        : repo.defaultVersions.contrail !== undefined
          ? { version: repo.defaultVersions.contrail, source: repo.file ?? 'groundcrew.yaml' }
          : { version: 'latest', source: 'contrail-ansible-deployer default' };
  const versions: DesiredVersions = { contrail };
  for (const component of VERSION_COMPONENTS) {
    if (component === 'contrail') continue;
    const own = nodeFile?.versions[component];
    const fallback = repo.defaultVersions[component];
    if (own !== undefined && nodeFile) versions[component] = { version: own, source: nodeFile.file };
    else if (fallback !== undefined) versions[component] = { version: fallback, source: repo.file ?? 'groundcrew.yaml' };
  }
  return versions;
}

function credentials(os: Os, setting: (key: string) => string | undefined): Credentials {
  const [userKey, passwordKey, defaultUser] =
    os === 'windows' ? ['ansible_user', 'ansible_password', 'Administrator'] : ['ssh_user', 'ssh_pwd', 'root'];
  const password = setting(passwordKey);
  const privateKeyFile = os === 'linux' ? setting('ssh_private_key') : undefined;
  return {
    user: setting(userKey) ?? defaultUser,
    ...(password ? { password: new Secret(password) } : {}),
    ...(privateKeyFile ? { privateKeyFile } : {}),
  };
}

/** Whether a node read from its files needs Keystone, and why: its own configuration decides. */
type KeystoneNeed = { why: string; configured: string | undefined } | undefined;
const keystoneNeeds = new WeakMap<NodeSpec, { need: KeystoneNeed; resolved?: NodeSpec }>();

function keystoneNeed(node: NodeSpec): { need: KeystoneNeed; resolved?: NodeSpec } {
  let known = keystoneNeeds.get(node);
  if (known) return known;
  const authMode = configText(node.configuration, 'AUTH_MODE');
  const orchestrator = configText(node.configuration, 'CLOUD_ORCHESTRATOR');
  const compute = node.roles.includes('vrouter') || node.roles.includes('openstack_compute');
  const needs = compute && (authMode === 'keystone' || orchestrator === 'openstack');
  const why = authMode === 'keystone' ? 'AUTH_MODE is keystone' : 'CLOUD_ORCHESTRATOR is openstack';
  known = { need: needs ? { why, configured: configText(node.configuration, 'KEYSTONE_AUTH_HOST') } : undefined };
  keystoneNeeds.set(node, known);
  return known;
}

/**
 * Which nodes need Keystone, where it is, and which inventory node (if any) must be verified first. A node
 * whose target is unchanged is the same object as in the last revision (the reconciler compares them).
 */
function resolveKeystone(src: YamlSource, nodes: readonly NodeSpec[], diags: Diagnostic[]): NodeSpec[] {
  const hosts = nodes.filter((n) => n.hostsKeystone);
  // The first node an address, name or hostname names (looked up by KEYSTONE_AUTH_HOST), indexed once.
  let named: Map<string, NodeSpec> | undefined;
  const byName = (wanted: string) => {
    if (!named) {
      named = new Map();
      for (const n of nodes) for (const k of [n.address, n.name, n.hostname]) if (!named.has(k)) named.set(k, n);
    }
    return named.get(wanted);
  };
  return nodes.map((node) => {
    const known = keystoneNeed(node);
    if (!known.need) return node;
    const { why, configured } = known.need;
    const host = configured === undefined ? hosts[0] : byName(configured);
    const address = configured ?? host?.address;
    if (address === undefined) {
      diags.push(
        src.diagnostic(
          ['instances', node.name],
          'error',
          `node "${node.name}" needs Keystone (${why}) but there is no Keystone host: set KEYSTONE_AUTH_HOST in contrail_configuration or give a node the openstack role`,
          'key',
        ),
      );
      return node;
    }
    const source = configured !== undefined ? 'KEYSTONE_AUTH_HOST' : `node "${host?.name}" has an openstack role`;
    const hostNode = host && host.name !== node.name ? host.name : undefined;
    const last = known.resolved?.keystone;
    if (known.resolved && last?.address === address && last.source === source && last.hostNode === hostNode) return known.resolved;
    known.resolved = { ...node, keystone: { address, source, ...(hostNode ? { hostNode } : {}) } };
    return known.resolved;
  });
}
