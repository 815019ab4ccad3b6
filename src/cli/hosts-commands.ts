// `groundcrew hosts` and `groundcrew hosts trust`: the host key pins in the state directory, read and
// re-pinned offline on the file (atomically), with or without the daemon running.

import { join } from 'node:path';
import { FINGERPRINT, HostKeyStore, type Pin } from '../dataplane/host-keys.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { DaemonConfigSchema, loadDaemonConfig } from './daemon-config.js';
import type { Output } from './inventory-commands.js';

export interface StateDirOptions {
  stateDir?: string;
  config?: string;
}

/** The pin file: `--state-dir`, else the daemon config's stateDir, else the default stateDir. */
function pinStore(options: StateDirOptions, io: Output): HostKeyStore | undefined {
  let stateDir = options.stateDir;
  if (!stateDir && options.config) {
    const loaded = loadDaemonConfig(options.config);
    if (!loaded.ok) {
      for (const e of loaded.errors) io.err(formatDiagnostic(e));
      return undefined;
    }
    stateDir = loaded.config.stateDir;
  }
  return new HostKeyStore(join(stateDir ?? DaemonConfigSchema.shape.stateDir.parse(undefined), 'known-hosts.json'));
}

/** Reads the pins; a file that cannot be trusted is reported (and left alone). */
function readPins(store: HostKeyStore, io: Output): Map<string, Pin> | undefined {
  try {
    return store.pins();
  } catch (err) {
    io.err(`groundcrew: ${(err as Error & { code?: string }).code}: ${(err as Error).message}`);
    return undefined;
  }
}

/** Exit codes: 0 listed, 1 the pin file cannot be read or parsed, 2 a bad config. */
export function hostsCommand(options: StateDirOptions, io: Output): number {
  const store = pinStore(options, io);
  if (!store) return 2;
  const pins = readPins(store, io);
  if (!pins) return 1;
  if (pins.size === 0) {
    io.out(`no host keys pinned yet in ${store.path}`);
    return 0;
  }
  const rows = [...pins].map(([endpoint, pin]) => [pin.node ?? '-', endpoint, pin.fingerprint, pin.pinnedAt ?? '(not recorded)']);
  const header = ['NODE', 'ENDPOINT', 'FINGERPRINT', 'PINNED AT'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  for (const row of [header, ...rows])
    io.out(
      row
        .map((cell, i) => cell.padEnd(widths[i] as number))
        .join('  ')
        .trimEnd(),
    );
  return 0;
}

/**
 * Re-pins a node whose key legitimately changed. NODE is the node's name as its pin records it, or the pin's
 * `host:port` (or host); a `host:port` with no pin yet is pinned new. Exit codes: 0 pinned, 1 refused.
 */
export function hostsTrustCommand(node: string, fingerprint: string, options: StateDirOptions, io: Output): number {
  if (!FINGERPRINT.test(fingerprint)) {
    io.err(
      `groundcrew hosts trust: expected --fingerprint SHA256:<43 base64 characters> (as \`ssh-keygen -lf\` prints it), found ${JSON.stringify(fingerprint)}`,
    );
    return 1;
  }
  const store = pinStore(options, io);
  if (!store) return 2;
  const pins = readPins(store, io);
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
      `groundcrew hosts trust: no pin for ${node} in ${store.path} (see \`groundcrew hosts\`); to pin a new host give it as HOST:PORT`,
    );
    return 1;
  }
  const before = pins.get(endpoint);
  const pin = store.trust(endpoint, fingerprint, byName.length > 0 ? node : undefined);
  io.out(
    `${pin.node ? `${pin.node} (${endpoint})` : endpoint}: pinned ${pin.fingerprint}${before ? ` in place of ${before.fingerprint}` : ''}`,
  );
  return 0;
}
