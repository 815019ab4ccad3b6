// gc-sim-client (test/lab/client/gc-sim-client.c), compiled once per source version: the ~1 ms process that hands
// a command to a resident simulator over a unix socket (lab hosts' ForceCommand and shims, real pwsh's natives).

import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const SOURCE = join(import.meta.dirname, '..', 'lab', 'client', 'gc-sim-client.c');

/** The client's path under `binDir`, compiling it there first if this version is not yet built. */
export async function compileSimClient(binDir: string): Promise<string> {
  const hash = createHash('sha1')
    .update(await readFile(SOURCE))
    .digest('hex')
    .slice(0, 12);
  const binary = join(binDir, `gc-sim-client-${hash}`);
  if (!existsSync(binary)) {
    await mkdir(binDir, { recursive: true });
    const tmp = `${binary}.${process.pid}`;
    await promisify(execFile)('cc', ['-O2', '-Wall', '-o', tmp, SOURCE]);
    await rename(tmp, binary);
  }
  return binary;
}
