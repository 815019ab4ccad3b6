// A Windows node of the example cluster upgraded from Contrail 5.0.1 to 5.1.0 with no fault, on the daemon as
// `groundcrew run` assembles it: the driver changes from contrail-docker-driver to contrail-cnm-plugin there
// (driver-names.ts), and the node verifies on the new revision. Before the old driver was taken off first, the
// node stayed in its driver phase: the old driver held the switch and the data adapter's address, and the new
// plugin waited for that address (halts-end.test.ts moved to 5.0.2 because of it).

import { afterAll, describe, expect, it } from 'vitest';
import { convergedAt, type SimDaemon, startSimDaemon } from '../support/sim-daemon.js';

const daemons: SimDaemon[] = [];
afterAll(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
});

describe('a Windows node upgraded across the driver rename', () => {
  it('5.0.1 -> 5.1.0 verifies, with the CNM plugin in place of the docker driver', async () => {
    const d = await startSimDaemon();
    daemons.push(d);
    await d.until('the first revision', () => d.daemon.status.current() !== undefined);
    await convergedAt(d, d.daemon.status.current()?.sha as string);
    expect(d.windows('win-compute-1').isRunning('contrail-docker-driver')).toBe(true);

    const sha = await d.push('win-compute-1 to 5.1.0', () => d.setVersion('win-compute-1', '5.1.0'));
    await convergedAt(d, sha);
    const host = d.windows('win-compute-1');
    expect(host.isRunning('contrail-cnm-plugin')).toBe(true);
    expect(host.service('contrail-docker-driver')).toBeUndefined();
    expect(Object.values(host.state.products).map((p) => p.name)).not.toContain('Contrail Docker Driver');
  }, 180_000);
});
