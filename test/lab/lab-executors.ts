// SSH executors to a lab's hosts, as the daemon makes them for its nodes (the lab's key, no pinned host keys,
// ten connections): one per call, all closed together when the test file ends.

import { HostKeyStore } from '../../src/dataplane/host-keys.js';
import { Limiter } from '../../src/dataplane/limiter.js';
import { SshExecutor } from '../../src/dataplane/ssh-executor.js';
import type { Lab } from './lab.js';

export class LabExecutors {
  readonly #open: SshExecutor[] = [];

  /** `lab` is read at each call: the lab is started in a beforeAll, after this is made. */
  constructor(private readonly lab: () => Lab) {}

  of(name: string): SshExecutor {
    const lab = this.lab();
    const host = lab.host(name);
    const executor = new SshExecutor({
      target: { os: host.os, host: host.address, username: host.user, privateKeyPath: lab.privateKey },
      hostKeys: new HostKeyStore(null),
      connections: new Limiter(10),
    });
    this.#open.push(executor);
    return executor;
  }

  async close(): Promise<void> {
    for (const executor of this.#open.splice(0)) await executor.close();
  }
}
