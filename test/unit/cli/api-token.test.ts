// The CLI's token lookup never blocks on a token file: a FIFO a runtime record names is no token, one named by
// --token-file (or GROUNDCREW_API_TOKEN_FILE) is an error that says so.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findToken, writeRuntimeRecord } from '../../../src/cli/api-token.js';

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
  it('reads the token file a live daemon recorded for the URL', () => {
    writeFileSync(join(dir, 'token'), 'abc123\n');
    writeRuntimeRecord('http://127.0.0.1:7391', join(dir, 'token'));
    expect(findToken('http://localhost:7391', {})).toBe('abc123');
  });

  it('a FIFO as the recorded token file is no token, and the lookup returns at once (it blocked for good before)', () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    writeRuntimeRecord('http://127.0.0.1:7392', join(dir, 'pipe'));
    expect(findToken('http://127.0.0.1:7392', {})).toBeUndefined();
  });

  it('a FIFO in place of a record is passed over at once (a read of it blocked for good before)', () => {
    mkdirSync(join(dir, 'runtime'), { recursive: true, mode: 0o700 });
    execFileSync('mkfifo', [join(dir, 'runtime', 'daemon-7394.json')]);
    // Not loopback: nothing after the records is looked at.
    expect(findToken('http://192.0.2.1:7394', {})).toBeUndefined();
  });
});

describe('findToken from --token-file', () => {
  it('reads the named file', () => {
    writeFileSync(join(dir, 'token'), 'abc123\n');
    expect(findToken('http://127.0.0.1:7393', { tokenFile: join(dir, 'token') })).toBe('abc123');
  });

  it('a FIFO named by --token-file is refused at once, by name (it blocked for good before)', () => {
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    expect(() => findToken('http://127.0.0.1:7393', { tokenFile: join(dir, 'pipe') })).toThrow(
      `${join(dir, 'pipe')}: not a regular file (a pipe or a device cannot be the API token file)`,
    );
  });
});
