// What the read commands load against a running daemon: the command tree, the record and token lookup and one HTTP
// client, never the daemon's config stack (yaml, zod, the inventory: 316 modules and ~1 s of CPU for `status`
// before, issue 41). Checked by the modules Node resolves, not by time; bench/cli-start.ts has the CPU figures.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DaemonProcess, startDaemonProcess } from '../support/daemon-process.js';
import { HEAVY, loadedModules } from '../support/loaded-modules.js';
import { waitUntil } from '../support/wait-until.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-client-startup-'));
let daemon: DaemonProcess;
beforeAll(async () => {
  daemon = await startDaemonProcess();
  await waitUntil('the example nodes in `status`', async () => {
    const r = await daemon.cli('status');
    return r.status === 0 && r.stdout.includes('win-compute-1');
  });
}, 90_000);
afterAll(async () => {
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the read commands start light', () => {
  const cases: [string[], RegExp][] = [
    [['status'], /^ctrl1 +[a-z]/m],
    [['status', '-o', 'json'], /"name": "ctrl1"/],
    [['nodes'], /^ctrl1 +[a-z]/m],
    [['history', 'ctrl1'], /converging|verified/],
    [['explain', 'ctrl1'], /ctrl1/],
    [['reconcile', 'ctrl1'], /^reconciling 1 node: ctrl1$/m],
  ];
  for (const [args, answer] of cases)
    it(`groundcrew ${args.join(' ')} answers from the daemon and loads none of its modules`, () => {
      const { urls, stdout } = loadedModules(dir, args, daemon.env);
      // The daemon answered (the proof, then the reads): what was loaded is what a real read needs.
      expect(stdout).toMatch(answer);
      expect(urls.some((u) => u.endsWith('/dist/src/cli/daemon-client.js'))).toBe(true);
      expect(urls.filter((u) => HEAVY.some((re) => re.test(u)))).toEqual([]);
    });
});
