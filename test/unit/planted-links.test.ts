// Each state file groundcrew writes, through the code that writes it, with a link planted where it goes (issue 30,
// item 6): the last good revision (intake), a node's snapshot (the snapshot store's old predictable temporary name,
// <file>.tmp-<pid>, and the name a snapshot is set aside to, <file>.corrupt-<ms>), the host key pins (the same), the runtime record. Nothing is written through the link; what it
// points at is untouched, and the file is groundcrew's own, 0600. (test/unit/private-files.test.ts covers the
// writer itself; these cover that every writer goes through it.)

import { lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeRuntimeRecord } from '../../src/cli/api-token.js';
import { newIdentityKey } from '../../src/daemon-identity.js';
import { HostKeyStore } from '../../src/dataplane/host-keys.js';
import { Intake } from '../../src/reconciler/intake.js';
import { SnapshotStore } from '../../src/reconciler/snapshot-store.js';
import { StatusStore } from '../../src/reconciler/status-store.js';

const EXAMPLE = join(import.meta.dirname, '..', '..', 'inventory-repo-example');
const dir = mkdtempSync(join(tmpdir(), 'gc-planted-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** A file outside the state directory, and a link to it planted at `path`. */
function plant(path: string): string {
  const victim = join(dir, `victim-${++n}`);
  writeFileSync(victim, 'not yours\n');
  symlinkSync(victim, path);
  return victim;
}

function expectUntouched(victim: string): void {
  expect(readFileSync(victim, 'utf8')).toBe('not yours\n');
}

function expectOwn(path: string): void {
  const stat = lstatSync(path);
  expect(stat.isSymbolicLink()).toBe(false);
  expect(stat.mode & 0o777).toBe(0o600);
}

describe('a link planted where a state file goes', () => {
  it('the last good revision: intake replaces the link, never writes through it', async () => {
    const stateDir = join(dir, 'intake');
    mkdirSync(stateDir);
    const file = join(stateDir, 'last-good-revision');
    const victim = plant(file);
    const intake = new Intake({
      reconciler: { apply: () => undefined, revision: undefined },
      status: new StatusStore(),
      log: pino({ level: 'silent' }),
      stateDir,
    });
    await intake.receive({ sha: 'a'.repeat(40), dir: EXAMPLE, subject: 'good', trigger: 'poll' });
    expectUntouched(victim);
    expectOwn(file);
    expect(readFileSync(file, 'utf8')).toBe(`${'a'.repeat(40)}\n`);
  });

  it("a node's snapshot: a link at the old predictable temporary name is not followed", async () => {
    const store = new SnapshotStore(join(dir, 'snapshots'));
    const file = join(store.dir, 'node1.json');
    const victim = plant(`${file}.tmp-${process.pid}`);
    store.save('node1', { value: 'snapshot' });
    await store.flush('node1');
    expectUntouched(victim);
    expectOwn(file);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ value: 'snapshot' });
  });

  it("a node's snapshot set aside while its write is queued: a link at the name it is set aside to is not followed", () => {
    const store = new SnapshotStore(join(dir, 'set-aside'));
    const at = Date.now() + 60_000;
    vi.useFakeTimers({ toFake: ['Date'], now: at });
    try {
      const aside = join(store.dir, `node2.json.corrupt-${at}`);
      const victim = plant(aside);
      store.save('node2', { value: 'unparsable to this version' });
      expect(store.setAside('node2', 'a test')).toBe(aside);
      expectUntouched(victim);
      expectOwn(aside);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the host key pins: a link at the old predictable temporary name is not followed', () => {
    const file = join(dir, 'known-hosts.json');
    const victim = plant(`${file}.tmp-${process.pid}`);
    new HostKeyStore(file).trust('10.0.0.1:22', `SHA256:${'A'.repeat(43)}`, 'node1');
    expectUntouched(victim);
    expectOwn(file);
  });

  it('the runtime record: a link at the record is replaced, its target neither written nor chmodded', () => {
    const runtime = join(dir, 'runtime');
    mkdirSync(runtime, { mode: 0o700 });
    const before = process.env.GROUNDCREW_RUNTIME_DIR;
    process.env.GROUNDCREW_RUNTIME_DIR = runtime;
    try {
      const record = join(runtime, 'daemon-7072.json');
      const victim = plant(record);
      const remove = writeRuntimeRecord('http://127.0.0.1:7072', '/var/lib/groundcrew/api-token', newIdentityKey());
      expectUntouched(victim);
      expect(lstatSync(victim).mode & 0o777).not.toBe(0o600);
      expectOwn(record);
      remove();
    } finally {
      if (before === undefined) delete process.env.GROUNDCREW_RUNTIME_DIR;
      else process.env.GROUNDCREW_RUNTIME_DIR = before;
    }
  });
});
