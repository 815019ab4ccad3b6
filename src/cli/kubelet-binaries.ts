// kubelet.exe files on the control host, by Kubernetes version: <dir>/<version>/kubelet.exe. Hashed once per
// file (by size and mtime), since every revision's plan asks for the hash of each worker's version.

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeletBinary } from '../roles/input.js';

export function kubeletBinaries(dir: string): (version: string) => KubeletBinary {
  const hashes = new Map<string, { stamp: string; sha256: string }>();
  return (version) => {
    const path = join(dir, version, 'kubelet.exe');
    let stamp: string;
    try {
      const s = statSync(path);
      stamp = `${s.size}:${s.mtimeMs}`;
    } catch {
      return { missing: `${path} does not exist (put the kubelet.exe of Kubernetes ${version} there)` };
    }
    let known = hashes.get(path);
    if (known?.stamp !== stamp) {
      known = { stamp, sha256: createHash('sha256').update(readFileSync(path)).digest('hex').toUpperCase() };
      hashes.set(path, known);
    }
    return { sha256: known.sha256, read: () => readFile(path) };
  };
}
