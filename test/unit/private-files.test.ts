// Files groundcrew keeps for itself, written where something may have been planted (issue 30: the last good
// revision, the runtime record (also chmodded), snapshot temporaries with predictable names and the host key pins
// were all written through a link planted where they go).

import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeRuntimeRecord } from '../../src/cli/api-token.js';
import { newIdentityKey } from '../../src/daemon-identity.js';
import { HostKeyStore } from '../../src/dataplane/host-keys.js';
import { ensurePrivateDir, writePrivateFile, writePrivateFileSync } from '../../src/private-files.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-private-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A file outside, and a link to it planted at `path`: what a planted link would have groundcrew overwrite. */
function plant(path: string, content = 'not yours\n'): string {
  const victim = join(dir, `victim-${++n}`);
  writeFileSync(victim, content);
  symlinkSync(victim, path);
  return victim;
}

function expectReplaced(path: string, victim: string, content = 'not yours\n'): void {
  expect(readFileSync(victim, 'utf8')).toBe(content);
  const stat = lstatSync(path);
  expect(stat.isSymbolicLink()).toBe(false);
  expect(stat.mode & 0o777).toBe(0o600);
}

describe('private files', () => {
  it('a write replaces a link planted at the file, never writes through it, and is 0600 whatever the umask', async () => {
    const old = process.umask(0);
    try {
      const a = join(dir, 'last-good-revision');
      const victimA = plant(a);
      writePrivateFileSync(a, 'abc\n');
      expectReplaced(a, victimA);
      expect(readFileSync(a, 'utf8')).toBe('abc\n');
      const b = join(dir, 'snapshot.json');
      const victimB = plant(b);
      await writePrivateFile(b, '{}');
      expectReplaced(b, victimB);
    } finally {
      process.umask(old);
    }
  });

  it('a link planted at the old predictable temporary name is not followed', () => {
    const file = join(dir, 'pins.json');
    const victim = plant(`${file}.tmp-${process.pid}`);
    writePrivateFileSync(file, 'x');
    expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('the host key pin file and the runtime record are written the same way', () => {
    const pins = join(dir, 'known-hosts.json');
    // Pins planted through a link are read (the state directory's check keeps others from planting one); the write
    // replaces the link.
    const victim = plant(pins, '{}\n');
    new HostKeyStore(pins).trust('10.0.0.1:22', `SHA256:${'A'.repeat(43)}`, 'node1');
    expectReplaced(pins, victim, '{}\n');
    const runtime = join(dir, 'runtime');
    mkdirSync(runtime, { mode: 0o700 });
    const before = process.env.GROUNDCREW_RUNTIME_DIR;
    process.env.GROUNDCREW_RUNTIME_DIR = runtime;
    try {
      const record = join(runtime, 'daemon-7071.json');
      const recordVictim = plant(record);
      const remove = writeRuntimeRecord('http://127.0.0.1:7071', '/var/lib/groundcrew/api-token', newIdentityKey());
      expectReplaced(record, recordVictim);
      remove();
      expect(existsSync(recordVictim)).toBe(true);
    } finally {
      if (before === undefined) delete process.env.GROUNDCREW_RUNTIME_DIR;
      else process.env.GROUNDCREW_RUNTIME_DIR = before;
    }
  });
});

describe('private directories', () => {
  it('a link, a file or another owner is refused with GC_STATE_UNSAFE', () => {
    const real = join(dir, 'real-state');
    mkdirSync(real);
    const link = join(dir, 'linked-state');
    symlinkSync(real, link);
    expect(() => ensurePrivateDir(link)).toThrow(/symbolic link/);
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    expect(() => ensurePrivateDir(file)).toThrow(/not a directory/);
    if (process.geteuid?.() === 0) {
      const foreign = join(dir, 'foreign');
      mkdirSync(foreign, { mode: 0o700 });
      chownSync(foreign, 65534, 65534);
      expect(() => ensurePrivateDir(foreign)).toThrow(/belongs to uid 65534/);
    }
    try {
      ensurePrivateDir(link);
    } catch (err) {
      expect((err as { code?: string }).code).toBe('GC_STATE_UNSAFE');
    }
  });

  it('a loose mode is tightened (the state directory to 0700); the runtime directory may keep group read', () => {
    const state = join(dir, 'loose-state');
    mkdirSync(state);
    chmodSync(state, 0o755);
    expect(ensurePrivateDir(state)).toEqual({ tightened: true });
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(ensurePrivateDir(state)).toEqual({ tightened: false });
    const runtime = join(dir, 'unit-runtime');
    mkdirSync(runtime);
    chmodSync(runtime, 0o750);
    expect(ensurePrivateDir(runtime, 0o027)).toEqual({ tightened: false });
    chmodSync(runtime, 0o777);
    ensurePrivateDir(runtime, 0o027);
    expect(statSync(runtime).mode & 0o777).toBe(0o750);
    const made = join(dir, 'new', 'state');
    ensurePrivateDir(made);
    expect(statSync(made).mode & 0o777).toBe(0o700);
  });
});
