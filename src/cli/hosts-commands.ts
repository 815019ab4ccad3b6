// `groundcrew hosts` and `groundcrew hosts trust`: the host key pins, with or without the daemon running. Alone,
// the pin file in the state directory, read and re-pinned (atomically) offline. With --config of a cluster-mode
// daemon, the pins every member shares in etcd: `hosts trust` writes the operator's pin there, and every member
// checks its next connection against it (a member's own file follows at its next start: cluster/host-key-pins.ts).

import { join } from 'node:path';
import pino from 'pino';
import { ClusterKeys, etcdClient } from '../cluster/etcd.js';
import { SharedHostKeyPins } from '../cluster/host-key-pins.js';
import { FINGERPRINT, HostKeyStore, type Pin } from '../dataplane/host-keys.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { DaemonConfigSchema, loadDaemonConfig } from './daemon-config.js';
import { inertLines } from './inert-text.js';
import type { Output } from './inventory-commands.js';

export interface StateDirOptions {
  stateDir?: string;
  config?: string;
}

/** Where the pins are, as the commands use them. */
interface Pins {
  where: string;
  read(): Promise<Map<string, Pin>>;
  trust(endpoint: string, fingerprint: string, node: string | undefined): Promise<Pin>;
  close(): void;
}

const ETCD_TIMEOUT_MS = 5000;

/**
 * The pin file (`--state-dir`, else the daemon config's stateDir, else the default stateDir), or with the
 * config of a cluster-mode daemon (and no --state-dir), the cluster's pins in etcd.
 */
function pinStore(options: StateDirOptions, io: Output): Pins | undefined {
  let stateDir = options.stateDir;
  if (!stateDir && options.config) {
    const loaded = loadDaemonConfig(options.config);
    if (!loaded.ok) {
      for (const e of loaded.errors) io.err(formatDiagnostic(e));
      return undefined;
    }
    stateDir = loaded.config.stateDir;
    const cluster = loaded.config.cluster;
    if (cluster) {
      const client = etcdClient(cluster.etcd, ETCD_TIMEOUT_MS);
      const keys = new ClusterKeys(cluster.prefix.endsWith('/') ? cluster.prefix : `${cluster.prefix}/`);
      const file = new HostKeyStore(join(stateDir, 'known-hosts.json'));
      const shared = new SharedHostKeyPins({
        client,
        keys,
        member: cluster.member,
        file,
        timeoutMs: ETCD_TIMEOUT_MS,
        log: pino({ level: 'silent' }),
      });
      return {
        where: `etcd (${cluster.etcd.endpoints.join(', ')}, ${keys.hostKeys()})`,
        read: async () => {
          const { pins, broken } = await shared.all();
          for (const endpoint of broken)
            io.err(inertLines(`groundcrew: the pin of ${endpoint} in etcd is not a pin: refused until re-pinned with \`hosts trust\``));
          return pins;
        },
        trust: (endpoint, fp, node) =>
          shared.trust(endpoint, { fingerprint: fp, pinnedAt: new Date().toISOString(), ...(node ? { node } : {}) }),
        close: () => client.close(),
      };
    }
  }
  const file = new HostKeyStore(join(stateDir ?? DaemonConfigSchema.shape.stateDir.parse(undefined), 'known-hosts.json'));
  return {
    where: file.path as string,
    read: async () => file.pins(),
    trust: async (endpoint, fp, node) => file.trust(endpoint, fp, node),
    close: () => undefined,
  };
}

/** Reads the pins; a file that cannot be trusted (or etcd not answering) is reported, and the file left alone. */
async function readPins(store: Pins, io: Output): Promise<Map<string, Pin> | undefined> {
  try {
    return await store.read();
  } catch (err) {
    io.err(inertLines(`groundcrew: ${(err as Error & { code?: string }).code}: ${(err as Error).message}`));
    return undefined;
  }
}

/** Exit codes: 0 listed, 1 the pins cannot be read (a damaged file, etcd not answering), 2 a bad config. */
export async function hostsCommand(options: StateDirOptions, io: Output): Promise<number> {
  const store = pinStore(options, io);
  if (!store) return 2;
  try {
    return await listPins(store, io);
  } finally {
    store.close();
  }
}

async function listPins(store: Pins, io: Output): Promise<number> {
  const pins = await readPins(store, io);
  if (!pins) return 1;
  if (pins.size === 0) {
    io.out(`no host keys pinned yet in ${store.where}`);
    return 0;
  }
  const rows = [...pins].map(([endpoint, pin]) => [pin.node ?? '-', endpoint, pin.fingerprint, pin.pinnedAt ?? '(not recorded)']);
  const header = ['NODE', 'ENDPOINT', 'FINGERPRINT', 'PINNED AT'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  for (const row of [header, ...rows])
    io.out(
      inertLines(
        row
          .map((cell, i) => cell.padEnd(widths[i] as number))
          .join('  ')
          .trimEnd(),
      ),
    );
  return 0;
}

/**
 * Re-pins a node whose key legitimately changed. NODE is the node's name as its pin records it, or the pin's
 * `host:port` (or host); a `host:port` with no pin yet is pinned new. Exit codes: 0 pinned, 1 refused.
 */
export async function hostsTrustCommand(node: string, fingerprint: string, options: StateDirOptions, io: Output): Promise<number> {
  if (!FINGERPRINT.test(fingerprint)) {
    io.err(
      `groundcrew hosts trust: expected --fingerprint SHA256:<43 base64 characters> (as \`ssh-keygen -lf\` prints it), found ${JSON.stringify(fingerprint)}`,
    );
    return 1;
  }
  const store = pinStore(options, io);
  if (!store) return 2;
  try {
    return await trustPin(store, node, fingerprint, io);
  } finally {
    store.close();
  }
}

async function trustPin(store: Pins, node: string, fingerprint: string, io: Output): Promise<number> {
  const pins = await readPins(store, io);
  if (!pins) return 1;
  const byName = [...pins].filter(([, pin]) => pin.node === node).map(([endpoint]) => endpoint);
  const byAddress = [...pins.keys()].filter((endpoint) => endpoint === node || endpoint.replace(/:\d+$/, '') === node);
  const matches = byName.length > 0 ? byName : byAddress;
  if (matches.length > 1) {
    io.err(`groundcrew hosts trust: ${node} matches ${matches.length} pins (${matches.join(', ')}); give one of them as HOST:PORT`);
    return 1;
  }
  const endpoint = matches[0] ?? (/^.+:\d+$/.test(node) ? node : undefined);
  if (!endpoint) {
    io.err(
      `groundcrew hosts trust: no pin for ${node} in ${store.where} (see \`groundcrew hosts\`); to pin a new host give it as HOST:PORT`,
    );
    return 1;
  }
  const before = pins.get(endpoint);
  let pin: Pin;
  try {
    pin = await store.trust(endpoint, fingerprint, byName.length > 0 ? node : before?.node);
  } catch (err) {
    io.err(inertLines(`groundcrew: ${(err as Error & { code?: string }).code}: ${(err as Error).message}`));
    return 1;
  }
  io.out(
    `${pin.node ? `${pin.node} (${endpoint})` : endpoint}: pinned ${pin.fingerprint}${before ? ` in place of ${before.fingerprint}` : ''}`,
  );
  return 0;
}
