// `groundcrew hosts` and `groundcrew hosts trust` as processes, on a state directory's pin file: found by
// --state-dir or by the daemon's --config; re-pinning is atomic, a malformed fingerprint is refused, and a
// damaged pin file is reported with GC_SSH_PINS_UNREADABLE and left byte for byte.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { errors } from '../../src/errors.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const KEY_A = 'SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s';
const KEY_B = 'SHA256:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU';

function groundcrew(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A state directory with two pins, as the daemon writes them, and a daemon config pointing at it. */
function stateWithPins() {
  const dir = mkdtempSync(join(tmpdir(), 'gc-hosts-'));
  const state = join(dir, 'state');
  mkdirSync(state);
  const pins = join(state, 'known-hosts.json');
  writeFileSync(
    pins,
    JSON.stringify({
      '192.0.2.31:22': { fingerprint: KEY_A, pinnedAt: '2025-01-02T03:04:05.000Z', node: 'win-compute-1' },
      '192.0.2.11:22': KEY_A,
    }),
  );
  const config = join(dir, 'groundcrew.yaml');
  writeFileSync(config, 'source: { path: repo }\nstateDir: state\n');
  return { state, pins, config };
}

describe('groundcrew hosts', () => {
  it('lists pins by --state-dir and by --config alike', () => {
    const { state, config } = stateWithPins();
    const byDir = groundcrew('hosts', '--state-dir', state);
    expect(byDir.status).toBe(0);
    expect(byDir.stdout.split('\n')).toEqual([
      'NODE           ENDPOINT       FINGERPRINT                                         PINNED AT',
      `win-compute-1  192.0.2.31:22  ${KEY_A}  2025-01-02T03:04:05.000Z`,
      `-              192.0.2.11:22  ${KEY_A}  (not recorded)`,
      '',
    ]);
    expect(groundcrew('hosts', '--config', config).stdout).toBe(byDir.stdout);
  });

  it('trust re-pins a node by name, atomically, and a host by address; the list shows it', () => {
    const { state, pins } = stateWithPins();
    const trusted = groundcrew('hosts', 'trust', 'win-compute-1', '--fingerprint', KEY_B, '--state-dir', state);
    expect(trusted.stderr).toBe('');
    expect(trusted.stdout.trim()).toBe(`win-compute-1 (192.0.2.31:22): pinned ${KEY_B} in place of ${KEY_A}`);
    expect(JSON.parse(readFileSync(pins, 'utf8'))['192.0.2.31:22']).toMatchObject({ fingerprint: KEY_B, node: 'win-compute-1' });
    expect(readdirSync(state)).toEqual(['known-hosts.json']);
    expect(groundcrew('hosts', 'trust', '192.0.2.11', '--fingerprint', KEY_B, '--state-dir', state).status).toBe(0);
    const list = groundcrew('hosts', '--state-dir', state).stdout;
    expect(list).not.toContain(KEY_A);
    expect(list).toMatch(new RegExp(`^-\\s+192\\.0\\.2\\.11:22\\s+${KEY_B.replace(/[+/]/g, '\\$&')}\\s+\\d{4}-`, 'm'));
  });

  it('trust refuses a malformed fingerprint and a node with no pin, changing nothing', () => {
    const { state, pins } = stateWithPins();
    const before = readFileSync(pins, 'utf8');
    for (const bad of ['SHA256:abc', 'ab:cd:ef', `${KEY_B}=`]) {
      const run = groundcrew('hosts', 'trust', 'win-compute-1', '--fingerprint', bad, '--state-dir', state);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        `expected --fingerprint SHA256:<43 base64 characters> (as \`ssh-keygen -lf\` prints it), found "${bad}"`,
      );
    }
    const unknown = groundcrew('hosts', 'trust', 'nobody', '--fingerprint', KEY_B, '--state-dir', state);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('no pin for nobody');
    expect(readFileSync(pins, 'utf8')).toBe(before);
  });

  it('a truncated pin file: both commands say GC_SSH_PINS_UNREADABLE and how to repair, and keep the file', () => {
    const { state, pins } = stateWithPins();
    const truncated = readFileSync(pins, 'utf8').slice(0, 50);
    writeFileSync(pins, truncated);
    for (const args of [['hosts'], ['hosts', 'trust', 'win-compute-1', '--fingerprint', KEY_B]]) {
      const run = groundcrew(...args, '--state-dir', state);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(`${errors.GC_SSH_PINS_UNREADABLE.code}: host key pin file ${pins} is not valid JSON`);
      expect(run.stderr).toContain('restore it from a backup');
    }
    expect(readFileSync(pins, 'utf8')).toBe(truncated);
    expect(readdirSync(state)).toEqual(['known-hosts.json']);
  });
});
