// `groundcrew validate` and `plan` as processes on a repo written by an attacker with push access: links
// out of the repo, pipes, devices, alias bombs and deep nesting are refused by name and place, and nothing
// a refused file holds is ever printed.

import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'gc-hostile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Shaped like YAML keys on purpose: before, each line came back as an "unknown key" diagnostic. */
const SECRET = `shadow-line-${process.pid}-${Date.now()}`;
const secretFile = join(dir, 'shadow');
writeFileSync(secretFile, `root: ${SECRET}\n${SECRET}: x\n`);

function groundcrew(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 20_000 });
  return { code: run.status, out: run.stdout + run.stderr, stderr: run.stderr };
}

let repos = 0;
/** The example repo, with `change` applied to it. */
function repo(change: (at: string) => void): string {
  const at = join(dir, `repo-${repos++}`);
  cpSync(join(ROOT, 'inventory-repo-example'), at, { recursive: true });
  change(at);
  return at;
}

/** No stack trace, no internal error text: only the project's own words. */
function expectNoInternals(out: string): void {
  expect(out).not.toMatch(/^\s+at /m);
  expect(out).not.toMatch(/Excessive alias count|Maximum call stack|RangeError|TypeError/);
}

describe('a hostile inventory repo', () => {
  it('refuses a link to a file outside the repo, and never shows what it holds', () => {
    const at = repo((r) => symlinkSync(secretFile, join(r, 'nodes', 'ctrl1.yaml')));
    for (const args of [
      ['validate', at],
      ['plan', at],
      ['demo', '--repo', at, '--port', '0'],
    ]) {
      const run = groundcrew(...args);
      expect(run.code, run.out).toBe(1);
      expect(run.stderr).toContain(
        `${at}/nodes/ctrl1.yaml:1:1: refused: a symbolic link; only regular files inside the inventory are read`,
      );
      expect(run.out).not.toContain(SECRET);
      expectNoInternals(run.out);
    }
  });

  it('refuses a linked nodes/ folder and a linked instances.yaml', () => {
    const nodes = repo((r) => {
      rmSync(join(r, 'nodes'), { recursive: true });
      symlinkSync(dir, join(r, 'nodes'));
    });
    const run = groundcrew('validate', nodes);
    expect(run.code, run.out).toBe(1);
    expect(run.stderr).toContain(`${nodes}/nodes:1:1: refused: a symbolic link`);
    const instances = repo((r) => {
      rmSync(join(r, 'instances.yaml'));
      symlinkSync(secretFile, join(r, 'instances.yaml'));
    });
    const again = groundcrew('validate', instances);
    expect(again.code, again.out).toBe(1);
    expect(again.stderr).toContain(`${instances}/instances.yaml:1:1: refused: a symbolic link`);
    expect(run.out + again.out).not.toContain(SECRET);
  });

  it('refuses a FIFO at once, and a link to /dev/zero', () => {
    const fifo = repo((r) => execFileSync('mkfifo', [join(r, 'nodes', 'ctrl1.yaml')]));
    const started = Date.now();
    const run = groundcrew('validate', fifo);
    // Generous: a process start and a parse; before, this never returned.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code, run.out).toBe(1);
    expect(run.stderr).toContain(`${fifo}/nodes/ctrl1.yaml:1:1: refused: a FIFO`);
    const zero = repo((r) => symlinkSync('/dev/zero', join(r, 'nodes', 'ctrl1.yaml')));
    const z = groundcrew('validate', zero);
    expect(z.code, z.out).toBe(1);
    expect(z.stderr).toContain(`${zero}/nodes/ctrl1.yaml:1:1: refused: a symbolic link`);
  });

  it('reports an alias bomb at its place, in its own words', () => {
    const lines = ['a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let i = 1; i < 10; i++)
      lines.push(
        `a${i}: &a${i} [${Array(9)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    const at = repo((r) => writeFileSync(join(r, 'groundcrew.yaml'), `${lines.join('\n')}\n`));
    const run = groundcrew('validate', at);
    expect(run.code, run.out).toBe(1);
    expect(run.stderr).toContain(`${at}/groundcrew.yaml:2:10: aliases expand past the limit of 100 copies (a YAML alias bomb?)`);
    expectNoInternals(run.out);
  });

  it('reports 200,000 levels of nesting at the line and column where it passes the limit', () => {
    const flow = repo((r) => writeFileSync(join(r, 'nodes', 'ctrl1.yaml'), `labels: ${'['.repeat(200_000)}${']'.repeat(200_000)}\n`));
    const run = groundcrew('validate', flow);
    expect(run.code, run.out).toBe(1);
    expect(run.stderr).toContain(`${flow}/nodes/ctrl1.yaml:1:108: nested more than 100 levels deep here`);
    expectNoInternals(run.out);
    const block = repo((r) => writeFileSync(join(r, 'instances.yaml'), `instances:\n${'- '.repeat(200_000)}x\n`));
    const again = groundcrew('validate', block);
    expect(again.code, again.out).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`${block}/instances.yaml:2:\\d+: nested more than 100 levels deep here`));
    expectNoInternals(again.out);
  });
});
