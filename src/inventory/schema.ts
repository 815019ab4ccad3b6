// The shapes of the three inventory files, as zod schemas; meaning is checked in parse-inventory.ts.

import { z } from 'zod';

export const ConfigValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const ConfigMap = z.record(z.string(), ConfigValue);

/** Connection keys contrail-ansible-deployer reads from provider_config, and per instance as overrides. */
export const CREDENTIAL_KEYS = [
  'ssh_user',
  'ssh_pwd',
  'ssh_public_key',
  'ssh_private_key',
  'ansible_user',
  'ansible_password',
  'ntpserver',
  'domainsuffix',
] as const;

const credentialShape = Object.fromEntries(CREDENTIAL_KEYS.map((k) => [k, ConfigValue.optional()])) as Record<
  (typeof CREDENTIAL_KEYS)[number],
  z.ZodOptional<typeof ConfigValue>
>;

export const InstanceSchema = z.strictObject({
  provider: z.string(),
  ip: z.string(),
  roles: z.record(z.string(), ConfigMap.nullable()).nullable().optional(),
  contrail_configuration: ConfigMap.nullable().optional(),
  ...credentialShape,
});

export const InstancesFileSchema = z.looseObject({
  provider_config: z.record(z.string(), z.record(z.string(), ConfigValue).nullable()).nullable().optional(),
  // Each instance is checked on its own (InstanceSchema) so one broken node does not hide the others' errors.
  instances: z.record(z.string(), z.unknown()),
  global_configuration: ConfigMap.nullable().optional(),
  contrail_configuration: ConfigMap.nullable().optional(),
  kolla_config: z.record(z.string(), z.unknown()).nullable().optional(),
  orchestrator_configuration: z.record(z.string(), z.unknown()).nullable().optional(),
  deployment: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const INSTANCES_TOP_KEYS = Object.keys(InstancesFileSchema.shape);
export const INSTANCE_KEYS = Object.keys(InstanceSchema.shape);

export const MODES = ['apply', 'monitor', 'autocorrect'] as const;
export type Mode = (typeof MODES)[number];

/** Components whose version a repo can pin; `contrail` overrides CONTRAIL_VERSION. */
export const VERSION_COMPONENTS = ['contrail', 'docker', 'kubernetes'] as const;
export type VersionComponent = (typeof VERSION_COMPONENTS)[number];

const VersionsSchema = z.partialRecord(z.enum(VERSION_COMPONENTS), z.union([z.string(), z.number()]));

export const NodeFileSchema = z.strictObject({
  versions: VersionsSchema.optional(),
  mode: z.enum(MODES).optional(),
  paused: z.boolean().optional(),
  labels: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  overrides: ConfigMap.optional(),
  /**
   * Per-host-subnet overlay on Windows: the data adapter the transparent network binds (its address moves to
   * the vNIC Windows makes). Never the management adapter: the overlay phase refuses one carrying the node's address.
   */
  overlay_interface: z
    .string()
    .min(1)
    .regex(/^[^'"`\r\n]+$/, 'expected an adapter name, e.g. Ethernet1')
    .optional(),
  /** Per-host-subnet overlay: host ports forwarded to an address in the node's subnet (netsh portproxy on Windows). */
  published_ports: z.array(z.strictObject({ port: z.number().int().min(1).max(65535), to: z.string() })).optional(),
});

const Count = z.union([z.number().int().min(0), z.string().regex(/^\d+%$/, 'expected a count or a percentage like "25%"')]);

export const REMOVAL_POLICIES = ['orphan', 'deconfigure'] as const;

export const RepoFileSchema = z.strictObject({
  defaults: z
    .strictObject({
      versions: VersionsSchema.optional(),
      mode: z.enum(MODES).optional(),
    })
    .optional(),
  rollout: z
    .strictObject({
      maxUnavailable: Count.optional(),
      failureBudget: Count.optional(),
      removalPolicy: z.enum(REMOVAL_POLICIES).optional(),
    })
    .optional(),
});

export type InstancesFile = z.infer<typeof InstancesFileSchema>;
export type InstanceEntry = z.infer<typeof InstanceSchema>;
