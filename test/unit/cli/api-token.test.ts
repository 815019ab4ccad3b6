// The CLI's token lookup never blocks on a token file: a FIFO a runtime record names is no token, one named by
// --token-file (or GROUNDCREW_API_TOKEN_FILE) is an error that says so.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeRuntimeRecord } from '../../../src/cli/api-token.js';
import { findToken } from '../../../src/cli/daemon-target.js';
import { recordFor } from '../../../src/cli/runtime-record.js';
import { newIdentityKey } from '../../../src/daemon-identity.js';

let dir: string;
let before: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gc-token-'));
  before = process.env.GROUNDCREW_RUNTIME_DIR;
  process.env.GROUNDCREW_RUNTIME_DIR = join(dir, 'runtime');
});
afterEach(() => {
  if (before === undefined) delete process.env.GROUNDCREW_RUNTIME_DIR;
  else process.env.GROUNDCREW_RUNTIME_DIR = before;
  rmSync(dir, { recursive: true, force: true });
});

describe('findToken from a runtime record', () => {
  it('reads the token file a live daemon recorded for the URL', async () => {
    writeFileSync(join(dir, 'token'), 'abc123\n');
    writeRuntimeRecord('http://127.0.0.1:7391', join(dir, 'token'), newIdentityKey());
    expect(await findToken('http://localhost:7391', recordFor('http://localhost:7391'), {})).toBe('abc123');
  });

  it('a FIFO as the recorded token file is no token, and the lookup returns at once (it blocked for good before)', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    writeRuntimeRecord('http://127.0.0.1:7392', join(dir, 'pipe'), newIdentityKey());
    expect(await findToken('http://127.0.0.1:7392', recordFor('http://127.0.0.1:7392'), {})).toBeUndefined();
  });

  it('a FIFO in place of a record is passed over at once (a read of it blocked for good before)', async () => {
    mkdirSync(join(dir, 'runtime'), { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', [join(dir, 'runtime', 'daemon-7394.json')]);
    // Not loopback: nothing after the records is looked at.
    expect(recordFor('http://192.0.2.1:7394')).toBeUndefined();
    expect(await findToken('http://192.0.2.1:7394', undefined, {})).toBeUndefined();
  });
});

describe('findToken from --token-file', () => {
  it('reads the named file', async () => {
    writeFileSync(join(dir, 'token'), 'abc123\n');
    expect(await findToken('http://127.0.0.1:7393', undefined, { tokenFile: join(dir, 'token') })).toBe('abc123');
  });

  it('a FIFO named by --token-file is refused at once, by name (it blocked for good before)', async () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await expect(findToken('http://127.0.0.1:7393', undefined, { tokenFile: join(dir, 'pipe') })).rejects.toThrow(
      `${join(dir, 'pipe')}: not a regular file (a pipe or a device cannot be the API token file)`,
    );
  });
});
