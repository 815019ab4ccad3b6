// `npm run lab -- up 3 --windows 2`, `npm run lab -- status`, `npm run lab -- down`: a lab to poke at by hand.

import { spawn } from 'node:child_process';
import { existsSync, openSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { waitUntil } from '../support/wait-until.js';
import { LAB_PASSWORD, LAB_ROOT, Lab, type LabHostSpec, removeLeftovers } from './lab.js';

const CURRENT = join(LAB_ROOT, 'current.json');

interface Current {
  pid: number;
  prefix: string;
  privateKey: string;
  hosts: { name: string; os: string; address: string; user: string }[];
}

function usage(): never {
  console.error('usage: npm run lab -- up N [--windows M] [--reboot-ms MS] | status | down');
  process.exit(2);
}

function describe(current: Current): string {
  const lines = [`lab ${current.prefix} (pid ${current.pid}); password for every host: ${LAB_PASSWORD}`, ''];
  for (const h of current.hosts) {
    const hint = h.os === 'windows' ? ' "powershell.exe -NoProfile -NonInteractive -Command Get-Service"' : '';
    lines.push(
      `${h.name.padEnd(6)} ${h.os.padEnd(8)} ssh -i ${current.privateKey} -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null ${h.user}@${h.address}${hint}`,
    );
  }
  return lines.join('\n');
}

async function readCurrent(): Promise<Current | undefined> {
  if (!existsSync(CURRENT)) return undefined;
  return JSON.parse(await readFile(CURRENT, 'utf8')) as Current;
}

async function serve(specJson: string): Promise<void> {
  const { hosts, rebootMs } = JSON.parse(specJson) as { hosts: LabHostSpec[]; rebootMs: number };
  const lab = await Lab.start({ hosts, rebootMs });
  const current: Current = {
    pid: process.pid,
    prefix: lab.prefix,
    privateKey: lab.privateKey,
    hosts: lab.hosts.map((h) => ({ name: h.name, os: h.os, address: h.address, user: h.user })),
  };
  await writeFile(CURRENT, JSON.stringify(current, null, 2));
  const stop = async () => {
    await lab.stop();
    await rm(CURRENT, { force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  setInterval(() => undefined, 60_000);
}

async function up(args: string[]): Promise<void> {
  const count = Number(args[0]);
  const option = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const windows = option('--windows', 0);
  if (!Number.isInteger(count) || count < 1 || windows > count) usage();
  if (await readCurrent()) {
    console.error(`a lab is already up (npm run lab -- status); take it down first with: npm run lab -- down`);
    process.exit(1);
  }
  const hosts: LabHostSpec[] = Array.from({ length: count }, (_, i) =>
    i < count - windows ? { name: `lin${i + 1}`, os: 'linux' } : { name: `win${i - (count - windows) + 1}`, os: 'windows' },
  );
  const log = openSync(join(LAB_ROOT, 'lab.log'), 'a');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', import.meta.filename, 'serve', JSON.stringify({ hosts, rebootMs: option('--reboot-ms', 3000) })],
    {
      detached: true,
      stdio: ['ignore', log, log],
    },
  );
  child.unref();
  const current = await waitUntil('the lab', async () => (await readCurrent()) ?? child.exitCode !== null, {
    timeoutMs: 60_000,
    intervalMs: 100,
  }).catch(() => undefined);
  if (current && current !== true) {
    console.log(describe(current));
    return;
  }
  console.error(`the lab did not come up; see ${join(LAB_ROOT, 'lab.log')}`);
  process.exit(1);
}

async function down(): Promise<void> {
  const current = await readCurrent();
  if (current) {
    try {
      process.kill(current.pid, 'SIGTERM');
      await waitUntil('the lab to stop', () => !existsSync(CURRENT), { timeoutMs: 10_000, intervalMs: 100 }).catch(() => undefined);
    } catch {
      // its process is already gone; removeLeftovers cleans up after it
    }
    await rm(CURRENT, { force: true });
  }
  const removed = await removeLeftovers();
  console.log(
    current || removed.length > 0 ? `lab down${removed.length ? ` (removed leftovers: ${removed.join(', ')})` : ''}` : 'no lab was up',
  );
}

const [command, ...rest] = process.argv.slice(2);
if (process.getuid?.() !== 0) {
  console.error('the lab makes network namespaces and needs root: run npm run lab as root');
  process.exit(1);
}
if (command === 'serve') await serve(rest[0] ?? '{}');
else if (command === 'up') await up(rest);
else if (command === 'down') await down();
else if (command === 'status') {
  const current = await readCurrent();
  console.log(current ? describe(current) : 'no lab is up');
} else usage();
