// The inventory file reader against the real filesystem: regular files only, inside the root, never a
// link, pipe, socket or device, and never more bytes than the cap, whatever stat says.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readInventoryFile } from '../../../src/inventory/read-inventory-file.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-reader-'));
const root = join(dir, 'repo');
const SECRET = `outside-secret-${process.pid}-${Date.now()}`;
mkdirSync(join(root, 'nodes'), { recursive: true });
writeFileSync(join(dir, 'outside.yaml'), `key: ${SECRET}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const refusal = async (rel: string, maxBytes?: number) => {
  const read = await readInventoryFile(root, rel, maxBytes);
  expect(read.ok).toBe(false);
  const reason = read.ok ? '' : read.refused;
  expect(reason).not.toContain(SECRET);
  return reason;
};

describe('readInventoryFile', () => {
  it('reads a regular file inside the root', async () => {
    writeFileSync(join(root, 'nodes', 'a.yaml'), 'versions: { contrail: "5.0.2" }\n');
    expect(await readInventoryFile(root, 'nodes/a.yaml')).toEqual({ ok: true, text: 'versions: { contrail: "5.0.2" }\n' });
  });

  it('refuses a symbolic link, to a file outside or inside the root', async () => {
    symlinkSync(join(dir, 'outside.yaml'), join(root, 'nodes', 'out.yaml'));
    symlinkSync('a.yaml', join(root, 'nodes', 'in.yaml'));
    expect(await refusal('nodes/out.yaml')).toBe('a symbolic link; only regular files inside the inventory are read');
    expect(await refusal('nodes/in.yaml')).toMatch(/^a symbolic link/);
  });

  it('refuses a path through a linked directory', async () => {
    mkdirSync(join(dir, 'elsewhere'));
    writeFileSync(join(dir, 'elsewhere', 'x.yaml'), `key: ${SECRET}\n`);
    symlinkSync(join(dir, 'elsewhere'), join(root, 'linked'));
    expect(await refusal('linked/x.yaml')).toMatch(/^a symbolic link/);
  });

  it('refuses a FIFO with no writer (an open that waited for one would never return: the test would time out)', async () => {
    execFileSync('mkfifo', [join(root, 'nodes', 'fifo.yaml')]);
    expect(await refusal('nodes/fifo.yaml')).toMatch(/^a FIFO;/);
  });

  it('refuses a socket, a device and a directory', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, 'sock.yaml'), resolve));
    try {
      expect(await refusal('sock.yaml')).toMatch(/^a socket;/);
    } finally {
      server.close();
    }
    expect(await readInventoryFile('/dev', 'zero')).toMatchObject({ ok: false, refused: expect.stringMatching(/^a device;/) });
    expect(await refusal('nodes')).toMatch(/^a directory;/);
  });

  it('caps the bytes actually read, not the size stat reports', async () => {
    writeFileSync(join(root, 'big.yaml'), 'x'.repeat(2048));
    expect(await refusal('big.yaml', 1024)).toMatch(/^larger than/);
    // /proc files report size 0 and hold more: the cap still holds.
    const proc = await readInventoryFile('/proc/self', 'environ', 8);
    expect(proc).toEqual({ ok: false, refused: 'larger than 0.0 MiB' });
  });

  it('says a missing file is missing', async () => {
    expect(await refusal('nodes/none.yaml')).toBe('no such file');
  });
});
