// Crash safety: the converging process is killed with SIGKILL at 20 random moments (some mid-reboot);
// each restart resumes from the snapshots, the cluster converges, no node reboots twice for the revision,
// and no snapshot is ever unreadable.

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'support', 'crash-converge.ts');

/** Runs the harness; kills it `killAfterMs` after it starts working, or soon after a node starts rebooting. */
function runFor(stateDir: string, kill: { afterMs: number; onReboot?: boolean } | undefined): Promise<{ done: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', HARNESS, stateDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let timer: NodeJS.Timeout | undefined;
    let aimed = false;
    child.stdout.on('data', (d) => {
      output += d;
      if (!kill) return;
      // The clock starts when the work does (after tsx and the grammars have loaded).
      if (timer === undefined && output.includes('STARTED'))
        timer = setTimeout(() => child.kill('SIGKILL'), kill.onReboot ? 250 : kill.afterMs);
      if (kill.onReboot && !aimed && / rebooting /.test(output)) {
        aimed = true;
        clearTimeout(timer);
        timer = setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
      }
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('exit', () => {
      clearTimeout(timer);
      resolve({ done: output.includes('DONE '), output });
    });
  });
}

const readJsonDir = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f, readFileSync(join(dir, f), 'utf8')] as const);

describe('crash safety', () => {
  it('up to 20 kills at random moments: every restart resumes, the cluster converges with one reboot per fresh Windows node', {
    timeout: 240_000,
  }, async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'gc-crash-'));
    let kills = 0;
    let midReboot = 0;
    for (let i = 0; i < 20; i++) {
      // Each run works 100 to 400 ms before its kill, resuming what the runs before it did. A rebooting
      // host stays down until the test powers it back on, so the kills land before and during the reboots
      // and the converge cannot finish early, however slow the machine.
      const { done, output } = await runFor(stateDir, { afterMs: 100 + Math.floor(Math.random() * 300) });
      if (done) {
        console.log(`converged before kill ${i + 1}: ${output.slice(output.indexOf('DONE '))}`);
        break;
      }
      kills++;
      for (const [file, text] of readJsonDir(join(stateDir, 'snapshots'))) {
        expect(() => JSON.parse(text), `snapshot ${file} after kill ${kills}`).not.toThrow();
        if (text.includes('"rebooting"')) midReboot++;
      }
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
    // Usually all 20 kills land before the converge can finish (rebooting hosts wait for the test to power
    // them on); once, under a loaded CI machine, a run finished after 18: the log line above says how.
    expect(kills).toBeGreaterThanOrEqual(15);
    expect(midReboot).toBeGreaterThan(0);
    console.log(`crash test: ${kills} kills, ${midReboot} snapshots seen mid-reboot`);
  });
});
