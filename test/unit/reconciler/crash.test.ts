// Crash safety: the converging process is killed with SIGKILL at 20 random moments, and once more at a moment
// a node's snapshot says it is rebooting; each restart resumes from the snapshots, the cluster converges, no
// node reboots twice for the revision, and no snapshot is ever unreadable.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'support', 'crash-converge.ts');

const readJsonDir = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .map((f) => [f, readFileSync(join(dir, f), 'utf8')] as const)
    : [];

const rebootingIn = (snapshots: string) => readJsonDir(snapshots).some(([, text]) => text.includes('"rebooting"'));

/**
 * Kills the harness once a node's snapshot on disk says it is rebooting. The process is frozen (SIGSTOP) while
 * the snapshots are read again, so no save can move the node on between the look and the kill; if none says
 * rebooting any more, it goes on (SIGCONT) and is looked at again.
 */
function killMidReboot(child: ChildProcess, snapshots: string): () => void {
  const look = setInterval(() => {
    if (!rebootingIn(snapshots)) return;
    child.kill('SIGSTOP');
    if (rebootingIn(snapshots)) {
      clearInterval(look);
      child.kill('SIGKILL');
    } else child.kill('SIGCONT');
  }, 20);
  return () => clearInterval(look);
}

/**
 * Runs the harness; kills it `afterMs` after it starts working, or (`midReboot`) while a snapshot says a node
 * is rebooting: a kill by the clock alone lands mid-reboot only if the machine reaches a reboot within the
 * runs' few seconds of work, which a loaded machine did not ("0 snapshots seen mid-reboot").
 */
function runFor(stateDir: string, kill: { afterMs: number } | { midReboot: true } | undefined): Promise<{ done: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', HARNESS, stateDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stop: (() => void) | undefined;
    child.stdout.on('data', (d) => {
      output += d;
      // The clock starts when the work does (after tsx and the grammars have loaded).
      if (!kill || stop || !output.includes('STARTED')) return;
      if ('midReboot' in kill) stop = killMidReboot(child, join(stateDir, 'snapshots'));
      else {
        const timer = setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
        stop = () => clearTimeout(timer);
      }
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('exit', () => {
      stop?.();
      resolve({ done: output.includes('DONE '), output });
    });
  });
}

describe('crash safety', () => {
  it('up to 21 kills, one of them mid-reboot: every restart resumes, the cluster converges with one reboot per fresh Windows node', {
    timeout: 240_000,
  }, async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'gc-crash-'));
    let kills = 0;
    let midReboot = 0;
    for (let i = 0; i < 21; i++) {
      // Each run works 100 to 400 ms before its kill, resuming what the runs before it did. A rebooting
      // host stays down for 12 s, so the kills land before and during the reboots. The 16th run is killed
      // while a snapshot says a node is rebooting (it works until one does), whatever the machine's speed.
      const aimed = i === 15;
      const { done, output } = await runFor(stateDir, aimed ? { midReboot: true } : { afterMs: 100 + Math.floor(Math.random() * 300) });
      if (done) {
        console.log(`converged before kill ${i + 1}: ${output.slice(output.indexOf('DONE '))}`);
        break;
      }
      kills++;
      const snapshots = readJsonDir(join(stateDir, 'snapshots'));
      for (const [file, text] of snapshots) expect(() => JSON.parse(text), `snapshot ${file} after kill ${kills}`).not.toThrow();
      if (snapshots.some(([, text]) => text.includes('"rebooting"'))) midReboot++;
      else expect(aimed, `kill ${kills} was aimed at a reboot, and no snapshot says rebooting`).toBe(false);
    }
    // Power the rebooting hosts back on (they come back whenever the daemon is down or up), then let it finish.
    for (const [file, text] of readJsonDir(join(stateDir, 'hosts'))) {
      const host = JSON.parse(text) as { downUntil?: number };
      if (host.downUntil !== undefined) writeFileSync(join(stateDir, 'hosts', file), JSON.stringify({ ...host, downUntil: Date.now() }));
    }
    const final = await runFor(stateDir, undefined);
    expect(final.output).toMatch(/DONE /);
    const reports = JSON.parse(final.output.slice(final.output.indexOf('DONE ') + 5)) as { node: string; state: string }[];
    expect(reports.map((r) => `${r.node}:${r.state}`)).toEqual([
      'ctrl1:verified',
      'compute-l1:verified',
      'compute-l2:verified',
      'win-compute-1:verified',
      'win-compute-2:verified',
      'win-compute-3:verified',
    ]);
    // The hosts' own boot counts: one boot to start with, plus one reboot for each fresh Windows node.
    const boots = Object.fromEntries(
      readJsonDir(join(stateDir, 'hosts')).map(([f, t]) => [f.replace('.json', ''), (JSON.parse(t) as { bootCount: number }).bootCount]),
    );
    expect(boots).toEqual({ ctrl1: 1, 'compute-l1': 1, 'compute-l2': 1, 'win-compute-1': 2, 'win-compute-2': 2, 'win-compute-3': 1 });
    // Usually every kill lands before the converge can finish (a rebooting host stays down 12 s); once, under a
    // loaded CI machine, a run finished after 18: the log line above says how. A converge that finished before
    // the aimed kill went through 12 s of reboot across several killed runs, each of which saw it.
    expect(kills).toBeGreaterThanOrEqual(15);
    expect(midReboot).toBeGreaterThan(0);
    console.log(`crash test: ${kills} kills, ${midReboot} of them with a node mid-reboot`);
  });
});
