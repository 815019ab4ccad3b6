// Network namespaces, veths and a bridge for lab hosts; and finding what earlier runs left behind.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function sh(file: string, args: string[], input?: string): Promise<string> {
  if (input === undefined) return (await run(file, args, { maxBuffer: 16 * 1024 * 1024 })).stdout;
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin?.end(input);
  });
}

/** Runs many `ip` commands in one process (ip -batch), optionally inside a namespace. */
export async function ipBatch(lines: string[], netns?: string): Promise<void> {
  if (lines.length === 0) return;
  await sh('ip', [...(netns ? ['-n', netns] : []), '-batch', '-'], `${lines.join('\n')}\n`);
}

export async function netnsList(): Promise<string[]> {
  const out = await sh('ip', ['netns', 'list']).catch(() => '');
  return out
    .split('\n')
    .map((l) => l.split(' ')[0] ?? '')
    .filter(Boolean);
}

export async function netnsPids(netns: string): Promise<number[]> {
  const out = await sh('ip', ['netns', 'pids', netns]).catch(() => '');
  return out.split('\n').filter(Boolean).map(Number);
}

/** Kills every process inside a namespace: how a lab host "powers off". */
export async function killAll(netns: string): Promise<void> {
  for (let round = 0; round < 20; round++) {
    const pids = await netnsPids(netns);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function linksWithPrefix(prefix: string): Promise<string[]> {
  const out = await sh('ip', ['-o', 'link', 'show']).catch(() => '');
  return out
    .split('\n')
    .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1] ?? '')
    .filter((name) => name.startsWith(prefix));
}

/** Removes every namespace and link whose name starts with `prefix`, and the processes inside. */
export async function teardown(prefix: string): Promise<void> {
  for (const ns of (await netnsList()).filter((n) => n.startsWith(prefix))) {
    await killAll(ns);
    await sh('ip', ['netns', 'del', ns]).catch(() => undefined);
  }
  const links = await linksWithPrefix(prefix);
  await ipBatch(links.map((l) => `link del ${l}`)).catch(async () => {
    for (const l of links) await sh('ip', ['link', 'del', l]).catch(() => undefined);
  });
}

/** A /24 in 10.0.0.0/8 that no address or route of this machine uses. */
export async function freeSubnet(): Promise<string> {
  const used = `${await sh('ip', ['-4', 'route', 'show', 'table', 'all']).catch(() => '')}\n${await sh('ip', ['-4', '-o', 'addr']).catch(() => '')}`;
  for (let attempt = 0; attempt < 200; attempt++) {
    const candidate = `10.${100 + Math.floor(Math.random() * 100)}.${Math.floor(Math.random() * 250)}`;
    if (!used.includes(`${candidate}.`)) return candidate;
  }
  throw new Error('no free 10.x.y.0/24 for the lab');
}
