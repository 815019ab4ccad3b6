// A local user watching the process list, as `ps` would: a separate process that reads /proc/*/cmdline of every
// process again and again (about every millisecond), as `nobody` when the test runs as root. It reports each
// distinct command line that mentions git (with whether it could read that process's /proc/PID/environ), and
// every command line that holds one of the secrets it was given (in its environment, not on its command line).
// It ends with the test's process: it checks its parent on every pass.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { waitUntil } from './wait-until.js';

export interface Sighting {
  pid: number;
  /** The command line, its arguments joined by spaces. */
  cmd: string;
  /** Reading /proc/PID/environ: `readable`, `holds a secret`, or the error's code (EACCES). */
  environ: string;
}

export interface ProcessWatch {
  /** Every distinct command line seen that mentions git or holds a secret. */
  readonly seen: Sighting[];
  /** Those of them that held a secret (in `seen` too). */
  readonly leaks: Sighting[];
  /** The user the watcher reads /proc as. */
  readonly uid: number;
  stop(): void;
}

const WATCH = `
const fs = require('node:fs');
const secrets = JSON.parse(process.env.GC_SECRETS);
const parent = process.ppid;
const reported = new Set();
const pause = new Int32Array(new SharedArrayBuffer(4));
const say = (o) => fs.writeSync(1, JSON.stringify(o) + '\\n');
const environ = (pid) => {
  try {
    const text = fs.readFileSync('/proc/' + pid + '/environ', 'latin1');
    return secrets.some((s) => text.includes(s)) ? 'holds a secret' : 'readable';
  } catch (err) {
    return err.code || String(err);
  }
};
for (let pass = 0; process.ppid === parent; pass++) {
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid)) continue;
    let raw;
    try { raw = fs.readFileSync('/proc/' + pid + '/cmdline', 'latin1'); } catch { continue; }
    const cmd = raw.replace(/\\0+$/, '').split('\\0').join(' ');
    const leak = secrets.some((s) => cmd.includes(s));
    if (!(leak || /git/.test(cmd)) || reported.has(pid + ' ' + cmd)) continue;
    reported.add(pid + ' ' + cmd);
    say({ kind: 'seen', leak, pid: Number(pid), cmd, environ: environ(pid) });
  }
  if (pass === 0) say({ kind: 'ready' });
  Atomics.wait(pause, 0, 0, 1);
}
`;

/** Starts the watcher; resolves once it has read the whole process list once. */
export async function watchProcesses(secrets: readonly string[]): Promise<ProcessWatch> {
  const asRoot = process.getuid?.() === 0;
  const uid = asRoot ? 65534 : (process.getuid?.() ?? -1);
  const child: ChildProcess = spawn(process.execPath, ['-e', WATCH], {
    env: { PATH: process.env.PATH, GC_SECRETS: JSON.stringify(secrets) },
    stdio: ['ignore', 'pipe', 'inherit'],
    cwd: '/',
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  const seen: Sighting[] = [];
  const leaks: Sighting[] = [];
  let ready = false;
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    const { kind, leak, ...sighting } = JSON.parse(line) as Sighting & { kind: string; leak?: boolean };
    if (kind === 'ready') ready = true;
    else {
      seen.push(sighting);
      if (leak) leaks.push(sighting);
    }
  });
  await waitUntil('the process watcher to read the process list once', () => ready || child.exitCode !== null, { timeoutMs: 30_000 });
  if (!ready) throw new Error(`the process watcher ended with ${child.exitCode}`);
  return { seen, leaks, uid, stop: () => child.kill() };
}

/** Whether `pid` is still running. */
export function running(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}
