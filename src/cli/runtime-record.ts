// The running daemons' records, read by the CLI on their host: which daemon listens where, its token file, and the
// key it proves itself with (daemon-identity.ts). Kept apart from the daemon's modules so that `status` and the
// other client commands load no config parser, inventory or server (issue 41: 316 modules, ~1 s of CPU, before).

import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { homedir, hostname, networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { UNIT_RUNTIME_DIR } from './paths.js';

/** What a daemon leaves in its runtime directory while it runs, as `daemon-<port>.json` (0600). */
export interface RuntimeRecord {
  url: string;
  tokenFile: string;
  pid: number;
  /** This start's identity key (hex): the daemon proves it knows it before the CLI sends the token. */
  identity: string;
}

/**
 * A regular file's text, a link to one followed. Opened without blocking and checked on the open file: a pipe would
 * hold the start (or the CLI) forever, even one swapped in after a check by name. `what` names it in the errors.
 */
export function readRegularFile(file: string, what: string): string {
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
export const recordDirs = (env: NodeJS.ProcessEnv = process.env) => [...new Set([runtimeDir(env), UNIT_RUNTIME_DIR])];

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const WILDCARD = new Set(['0.0.0.0', '[::]']);

export const isLoopback = (host: string) => LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);

/** The config's `listen` (`host:port`, `[v6]:port`) as host and port. */
export function splitListen(listen: string): [string, number] {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(listen);
  if (!m) throw new Error(`listen: "${listen}" is not host:port`);
  return [m[1] as string, Number(m[2])];
}

/** A URL a client can use for a daemon's listen address: a wildcard bind is reached on loopback. */
export function reachable(url: string): string {
  const u = new URL(url);
  if (u.hostname === '0.0.0.0') u.hostname = '127.0.0.1';
  if (u.hostname === '[::]') u.hostname = '[::1]';
  return u.origin;
}

/** Two daemon URLs name the same daemon: same port, and the same host or both loopback (a wildcard bind is too). */
function sameDaemon(recorded: URL, target: URL): boolean {
  if (recorded.port !== target.port) return false;
  const local = (h: string) => isLoopback(h) || WILDCARD.has(h);
  return recorded.hostname === target.hostname || (local(recorded.hostname) && isLoopback(target.hostname));
}

/**
 * Whether a URL's host is this host: a listener there may be any local user's. Loopback, a wildcard, this host's
 * name or one of its addresses; any other name counts as another host (not resolved: the CLI starts without DNS).
 */
export function onThisHost(url: string): boolean {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLoopback(host) || isLoopback(`[${host}]`) || WILDCARD.has(host) || WILDCARD.has(`[${host}]`)) return true;
  if (host === hostname()) return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((a) => a.address === host));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const isRecord = (r: Partial<RuntimeRecord>): r is RuntimeRecord =>
  typeof r.url === 'string' && typeof r.tokenFile === 'string' && Number.isSafeInteger(r.pid) && typeof r.identity === 'string';

/** The records of daemons that run now (their process is alive), with the file each was read from. */
export function liveRecords(env: NodeJS.ProcessEnv = process.env): (RuntimeRecord & { file: string })[] {
  const found: (RuntimeRecord & { file: string })[] = [];
  for (const dir of recordDirs(env)) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((f) => /^daemon-\d+\.json$/.test(f));
    } catch {
      // not there, or not ours to read
    }
    for (const name of names) {
      const file = join(dir, name);
      try {
        const record = JSON.parse(readRegularFile(file, 'a daemon record')) as Partial<RuntimeRecord>;
        if (isRecord(record) && alive(record.pid)) found.push({ ...record, file });
      } catch {
        // A record being written or left half by a crash, or not a file: not a daemon's.
      }
    }
  }
  return found;
}

/** The live record of the daemon at `url`, if one is on this host and readable to this user. */
export const recordFor = (url: string, env: NodeJS.ProcessEnv = process.env) =>
  liveRecords(env).find((r) => sameDaemon(new URL(r.url), new URL(url)));
