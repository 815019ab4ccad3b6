// The CLI's token lookup never blocks on what a runtime record names: a FIFO there is no token.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
});
