// Where the API token lives and how the CLI on the same host finds it (as Jupyter does): the daemon makes
// `<stateDir>/api-token` (0600) on first start when the config names none, and while it runs leaves a
// record `daemon-<port>.json` {url, tokenFile, pid} in the runtime directory; `status`, `reconcile` and
// `plan --url` look the URL up there. A flag, the environment or a config file say otherwise.

import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, rmSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errors } from '../errors.js';
import { ensurePrivateDir, writePrivateFileSync } from '../private-files.js';
import { loadDaemonConfig } from './daemon-config.js';
import { DEFAULT_CONFIG, DEFAULT_TOKEN_FILE, UNIT_RUNTIME_DIR } from './paths.js';

/** The configured token file, or `<stateDir>/api-token`, made with a fresh random token if it is not there. */
export function ensureApiToken(stateDir: string, configured?: string): { token: string; file: string } {
  const file = configured ?? join(stateDir, 'api-token');
  if (!configured) ensureOwnToken(file);
  const token = readTokenFile(file);
  if (token.length < 16) throw new Error(`${file}: the API token must be at least 16 characters, found ${token.length}`);
  return { token, file };
}

/**
 * The token groundcrew makes for itself in its state directory: made when it is not there; a link (planted: groundcrew
 * never makes one there) or anything but a regular file is refused by name.
 */
function ensureOwnToken(file: string): void {
  let stat: Stats;
  try {
    stat = lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    writePrivateFileSync(file, `${randomBytes(32).toString('hex')}\n`);
    return;
  }
  if (stat.isSymbolicLink()) throw errors.GC_STATE_UNSAFE(`${file} is a symbolic link; groundcrew makes this file itself: remove the link`);
  if (!stat.isFile()) throw errors.GC_STATE_UNSAFE(`${file} is not a regular file; groundcrew makes this file itself: remove it`);
}

/**
 * A regular file's text, a link to one followed. Opened without blocking and checked on the open file: a pipe would
 * hold the start (or the CLI) forever, even one swapped in after a check by name. `what` names it in the errors.
 */
function readRegularFile(file: string, what: string): string {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new Error(`${file}: a directory, not ${what}`);
    if (!stat.isFile()) throw new Error(`${file}: not a regular file (a pipe or a device cannot be ${what})`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

const readTokenFile = (file: string) => readRegularFile(file, 'the API token file').trim();

/**
 * $GROUNDCREW_RUNTIME_DIR, else $RUNTIME_DIRECTORY (systemd's, from the unit's `RuntimeDirectory=`), else
 * $XDG_RUNTIME_DIR/groundcrew, else ~/.local/share/groundcrew/runtime.
 */
export function runtimeDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GROUNDCREW_RUNTIME_DIR) return env.GROUNDCREW_RUNTIME_DIR;
  const systemd = env.RUNTIME_DIRECTORY?.split(':')[0];
  if (systemd) return systemd;
  if (env.XDG_RUNTIME_DIR) return join(env.XDG_RUNTIME_DIR, 'groundcrew');
  return join(homedir(), '.local', 'share', 'groundcrew', 'runtime');
}

/** Where the CLI looks for daemons' records: its own runtime directory, and the unit's (a daemon systemd runs). */
function recordDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...new Set([runtimeDir(env), UNIT_RUNTIME_DIR])];
}

interface RuntimeRecord {
  url: string;
  tokenFile: string;
  pid: number;
}

/** Leaves the running daemon's record; the function returned removes it. */
export function writeRuntimeRecord(url: string, tokenFile: string): () => void {
  const dir = runtimeDir();
  // Its group may read it (the unit's RuntimeDirectoryMode=0750); nobody else, and no link is followed.
  ensurePrivateDir(dir, 0o027);
  const file = join(dir, `daemon-${new URL(url).port}.json`);
  writePrivateFileSync(file, JSON.stringify({ url, tokenFile, pid: process.pid } satisfies RuntimeRecord));
  return () => rmSync(file, { force: true });
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Two daemon URLs name the same daemon: same port, same host, or both loopback. */
function sameDaemon(a: URL, b: URL): boolean {
  return a.port === b.port && (a.hostname === b.hostname || (LOOPBACK.has(a.hostname) && LOOPBACK.has(b.hostname)));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

function fromRuntimeRecords(url: URL): string | undefined {
  for (const dir of recordDirs()) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((f) => /^daemon-\d+\.json$/.test(f));
    } catch {
      // not there, or not ours to read
    }
    for (const name of names) {
      try {
        const record = JSON.parse(readRegularFile(join(dir, name), 'a daemon record')) as RuntimeRecord;
        if (sameDaemon(new URL(record.url), url) && alive(record.pid)) return record.tokenFile;
      } catch {
        // A record being written or left half by a crash, or not a file: not this daemon's.
      }
    }
  }
  return undefined;
}

/** A token file's content, or undefined where there is none to read (see readTokenFile). */
const readable = (file: string) => {
  try {
    return readTokenFile(file) || undefined;
  } catch {
    return undefined;
  }
};

/**
 * The token for `url`: --token-file (or GROUNDCREW_API_TOKEN_FILE) when given, else the token file of the
 * daemon that left a runtime record for that URL (in the CLI's runtime directory or the unit's, /run/groundcrew),
 * else the one a --config (GROUNDCREW_CONFIG) names, else, for a loopback URL only, the one the default config
 * (/etc/groundcrew/groundcrew.yaml) names, else the default state directory's. Undefined when none can be read.
 */
export function findToken(url: string, options: { tokenFile?: string; config?: string }): string | undefined {
  if (options.tokenFile) return readTokenFile(options.tokenFile);
  const target = new URL(url);
  const recorded = fromRuntimeRecords(target);
  if (recorded) return readable(recorded);
  // The config named, else (for the daemon on this host) the one `run` reads by default.
  const config = options.config ?? (LOOPBACK.has(target.hostname) && existsSync(DEFAULT_CONFIG) ? DEFAULT_CONFIG : undefined);
  if (config) {
    const loaded = loadDaemonConfig(config);
    if (loaded.ok) return readable(loaded.config.apiTokenFile ?? join(loaded.config.stateDir, 'api-token'));
  }
  return LOOPBACK.has(target.hostname) ? readable(DEFAULT_TOKEN_FILE) : undefined;
}
