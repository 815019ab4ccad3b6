// Lab hygiene: many hosts start and stop cleanly, and a crashed run's leftovers are removed by the next one.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Lab, removeLeftovers } from './lab.js';
import { linksWithPrefix, netnsList, sh } from './netns.js';
import { ssh } from './ssh.js';

async function processesMentioning(text: string): Promise<string[]> {
  const out = await sh('ps', ['-eo', 'pid,args']);
  return out.split('\n').filter((l) => l.includes(text) && !l.includes('ps -eo'));
}

async function nothingLeftOf(prefix: string, dir: string): Promise<void> {
  expect((await netnsList()).filter((n) => n.startsWith(prefix))).toEqual([]);
  expect(await linksWithPrefix(prefix)).toEqual([]);
  expect(await processesMentioning(dir)).toEqual([]);
  expect(existsSync(dir)).toBe(false);
}

describe('lab lifecycle', () => {
  it('starts 20 hosts (10 Linux, 10 Windows), each answering over SSH, and stops leaving nothing behind', {
    timeout: 300_000,
  }, async () => {
    const started = Date.now();
    const lab = await Lab.start({
      hosts: Array.from({ length: 20 }, (_, i) => ({ name: `h${i + 1}`, os: i % 2 === 0 ? ('linux' as const) : ('windows' as const) })),
    });
    try {
      const answers = await Promise.all(
        lab.hosts.map((h) =>
          ssh(lab, h.name, h.os === 'linux' ? 'hostname' : 'powershell.exe -NoProfile -NonInteractive -Command hostname'),
        ),
      );
      expect(answers.map((a) => a.stdout.trim())).toEqual(lab.hosts.map((h) => h.name));
      expect(new Set(lab.hosts.map((h) => h.address)).size).toBe(20);
    } finally {
      await lab.stop();
    }
    console.log(`lab of 20 hosts: started, checked and stopped in ${Date.now() - started} ms`);
    await nothingLeftOf(`${lab.prefix}-`, lab.dir);
  });

  it("removes a crashed run's namespaces, links, sshd processes and files", { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'crash-lab.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const { prefix, dir } = await new Promise<{ prefix: string; dir: string }>((resolve, reject) => {
      child.stdout.once('data', (d) => resolve(JSON.parse(String(d))));
      child.once('exit', (code) => reject(new Error(`crash-lab exited ${code}`)));
    });
    expect((await netnsList()).filter((n) => n.startsWith(`${prefix}-`))).toHaveLength(2);
    expect((await processesMentioning(dir)).length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    // Its sshd processes outlive it: that is what a crash leaves.
    expect((await processesMentioning(dir)).length).toBeGreaterThan(0);

    expect(await removeLeftovers()).toContain(prefix);
    await nothingLeftOf(`${prefix}-`, dir);
  });

  it('never removes a lab whose owner is alive', async () => {
    const lab = await Lab.start({ hosts: [{ name: 'alive1', os: 'linux' }] });
    try {
      expect(await removeLeftovers()).not.toContain(lab.prefix);
      expect((await ssh(lab, 'alive1', 'hostname')).stdout).toBe('alive1\n');
    } finally {
      await lab.stop();
    }
  });
});
