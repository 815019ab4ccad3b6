// A real etcd of its own for one test file that needs no daemon and no lab (the classes of src/cluster against
// etcd): started before the file's tests, stopped and its data removed after them.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { EtcdCluster } from './etcd-cluster.js';

/** `size` members from `basePort` (one base per test file); read `etcd` only in hooks and tests. */
export function etcdSuite(basePort: number, size = 1): { readonly etcd: EtcdCluster } {
  let dir: string | undefined;
  let etcd: EtcdCluster | undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gc-etcd-'));
    etcd = new EtcdCluster(join(dir, 'etcd'), basePort, size);
    await etcd.start();
  }, 60_000);
  // Registered first, so it runs after the file's own afterAll hooks (vitest runs them as a stack): clients close first.
  afterAll(async () => {
    try {
      await etcd?.stop();
    } finally {
      if (dir) rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
  return {
    get etcd(): EtcdCluster {
      if (!etcd) throw new Error('etcd is not started');
      return etcd;
    },
  };
}
