// Which daemon a client command talks to, with which token, and whether it must prove itself first: the URL given,
// else the one `--config` listens on, else the one daemon recorded on this host, else 127.0.0.1:7070. The token
// goes only to a daemon that proves its runtime record's key (daemon-client.ts), or to another host's (nothing
// here can check it: docs/operations.md, "The local-user boundary").

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ClientOptions, DaemonSession, NotTheDaemon } from './daemon-client.js';
import { DEFAULT_CONFIG, DEFAULT_TOKEN_FILE } from './paths.js';
import {
  isLoopback,
  liveRecords,
  onThisHost,
  type RuntimeRecord,
  reachable,
  readRegularFile,
  recordDirs,
  recordFor,
  splitListen,
} from './runtime-record.js';

export interface TargetFlags {
  /** --url (or GROUNDCREW_URL); none: found as above. */
  url?: string;
  tokenFile?: string;
  config?: string;
}

const readTokenFile = (file: string) => readRegularFile(file, 'the API token file').trim();

/** A token file's content, or undefined where there is none to read (see readTokenFile). */
const readable = (file: string) => {
  try {
    return readTokenFile(file) || undefined;
  } catch {
    return undefined;
  }
};

/** The daemon config: only for a --config (or the default one), loaded when the lookup comes to it. */
async function daemonConfig(file: string) {
  const [{ loadDaemonConfig }, { formatDiagnostic }] = await Promise.all([
    import('./daemon-config.js'),
    import('../inventory/diagnostic.js'),
  ]);
  const loaded = loadDaemonConfig(file);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => formatDiagnostic(e)).join('; '));
  return loaded.config;
}

/** The daemon's URL when none is given: the --config's listen address, else the one daemon recorded here. */
async function findUrl(config: string | undefined): Promise<string> {
  const live = [...new Set(liveRecords().map((r) => reachable(r.url)))];
  if (config) {
    const [host, port] = splitListen((await daemonConfig(config)).listen);
    const listen = reachable(`http://${host.includes(':') ? `[${host}]` : host}:${port}`);
    if (port !== 0) return listen;
    // Any free port: the record of the daemon that listens on that host says which.
    const there = live.filter((url) => new URL(url).hostname === new URL(listen).hostname);
    if (there.length === 1) return there[0] as string;
    throw new Error(`${config}: listen ${host}:0 takes any free port, and ${there.length} running daemons recorded one there: give --url`);
  }
  if (live.length > 1) throw new Error(`several daemons run on this host (${live.join(', ')}): give --url`);
  return live[0] ?? 'http://127.0.0.1:7070';
}

/**
 * The token for `url`: --token-file (or GROUNDCREW_API_TOKEN_FILE) when given, else the token file of the daemon
 * that recorded that URL, else the one a --config (GROUNDCREW_CONFIG) names, else, for a loopback URL only, the one
 * the default config (/etc/groundcrew/groundcrew.yaml) names, else the default state directory's. Undefined when
 * none can be read.
 */
export async function findToken(url: string, record: RuntimeRecord | undefined, flags: TargetFlags): Promise<string | undefined> {
  if (flags.tokenFile) return readTokenFile(flags.tokenFile);
  if (record) return readable(record.tokenFile);
  const loopback = isLoopback(new URL(url).hostname);
  const config = flags.config ?? (loopback && existsSync(DEFAULT_CONFIG) ? DEFAULT_CONFIG : undefined);
  if (config) {
    const loaded = await daemonConfig(config).catch(() => undefined);
    if (loaded) return readable(loaded.apiTokenFile ?? join(loaded.stateDir, 'api-token'));
  }
  return loopback ? readable(DEFAULT_TOKEN_FILE) : undefined;
}

/** Where the client commands go, and how: refused when a token would go to a listener on this host that no record names. */
export async function daemonTarget(flags: TargetFlags): Promise<ClientOptions> {
  const url = flags.url ?? (await findUrl(flags.config));
  const record = recordFor(url);
  const token = await findToken(url, record, flags);
  if (!record && token !== undefined && onThisHost(url))
    throw new NotTheDaemon(
      `no running groundcrew daemon on this host recorded ${url} (no live record of it in ${recordDirs().join(' or ')} that ` +
        'this user can read), so the API token was not sent: a listener there may be any local user; start the daemon, ' +
        'or run the command as its user',
    );
  return { url, session: new DaemonSession(url, token, record) };
}
