// The same role-level test, unchanged, over SSH to lab hosts and over the in-process simulator.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/dataplane/executor.js';
import { HostKeyStore } from '../../src/dataplane/host-keys.js';
import { Limiter } from '../../src/dataplane/limiter.js';
import { SimExecutor, SimShells } from '../../src/dataplane/sim-executor.js';
import { SshExecutor } from '../../src/dataplane/ssh-executor.js';
import { LinuxHost } from '../../src/sim/linux/linux-host.js';
import { WindowsHost } from '../../src/sim/windows/windows-host.js';
import { fileResource } from '../support/file-resource.js';
import { Lab } from './lab.js';

let lab: Lab;
let shells: SimShells;
const executors: Executor[] = [];

beforeAll(async () => {
  [lab, shells] = await Promise.all([
    Lab.start({
      hosts: [
        { name: 'pl', os: 'linux' },
        { name: 'pw', os: 'windows' },
      ],
    }),
    SimShells.create(),
  ]);
});
afterAll(async () => {
  for (const e of executors) await e.close();
  await lab?.stop();
});

function make(transport: 'ssh' | 'sim', os: 'linux' | 'windows'): Executor {
  let e: Executor;
  if (transport === 'sim') {
    e = new SimExecutor({ host: os === 'linux' ? LinuxHost.fresh('pl') : WindowsHost.fresh({ hostname: 'pw' }), shells });
  } else {
    const host = lab.host(os === 'linux' ? 'pl' : 'pw');
    e = new SshExecutor({
      target: { os, host: host.address, username: host.user, privateKeyPath: lab.privateKey },
      hostKeys: new HostKeyStore(null),
      connections: new Limiter(10),
    });
  }
  executors.push(e);
  return e;
}

const CASES = [
  ['ssh', 'linux', '/etc/contrail/parity'],
  ['sim', 'linux', '/etc/contrail/parity'],
  ['ssh', 'windows', 'C:\\ProgramData\\Contrail\\parity'],
  ['sim', 'windows', 'C:\\ProgramData\\Contrail\\parity'],
] as const;

describe.each(CASES)('a file resource over %s to a %s host', (transport, os, dir) => {
  it('test finds the difference, set fixes it, a second test finds none, and a converged pass changes nothing', {
    timeout: 240_000,
  }, async () => {
    const executor = make(transport, os);
    const content = "KEY='it''s $(not) expanded'\nLINE=two";
    const resource = fileResource(executor, dir, 'common.env', content);
    expect(await resource.get()).toBeUndefined();
    expect(await resource.test()).toBe(false);
    await resource.set();
    expect(await resource.test()).toBe(true);
    expect(await resource.get()).toBe(content);
    // Idempotent: the next pass only reads.
    expect(await resource.test()).toBe(true);
  });
});
