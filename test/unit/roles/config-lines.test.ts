// Issue 39, defence in depth: whatever the inventory let through, the env file and the Windows config writers
// refuse a value with a control character (GC_UNSAFE_VALUE, one line, the key named and the value not shown)
// rather than write it as lines of their own.

import { describe, expect, it } from 'vitest';
import { envFile } from '../../../src/roles/linux/env-file.js';
import { agentConfig, cnmConfig, nodemgrConfig } from '../../../src/roles/windows/contrail-config.js';
import { windowsInput } from '../../support/inputs.js';

const ENV = '/etc/contrail/common_vrouter.env';
const keystone = {
  address: '192.0.2.9',
  source: 'KEYSTONE_AUTH_HOST',
  user: 'admin',
  password: 'hunter2',
  project: 'admin',
  domain: 'Default',
};

describe('the config writers', () => {
  it('write one line per key for values without control characters', () => {
    expect(envFile(ENV, { PHYSICAL_INTERFACE: 'eth0', CONTROL_NODES: '10.0.0.1' })).toBe(
      'CONTROL_NODES=10.0.0.1\nPHYSICAL_INTERFACE=eth0\n',
    );
    expect(cnmConfig(windowsInput({ keystone }))).toContain('Os_password=hunter2');
  });

  it('refuse a value with a line break, naming the file and the key, never the value', () => {
    const env = () => envFile(ENV, { KEYSTONE_AUTH_ADMIN_PASSWORD: 'hunter2\nLD_PRELOAD=/tmp/x.so', PHYSICAL_INTERFACE: 'eth0' });
    expect(env).toThrow(`${ENV}: the value of "KEYSTONE_AUTH_ADMIN_PASSWORD" holds a line break (U+000A); the file is not written`);
    expect(env).toThrow(expect.objectContaining({ code: 'GC_UNSAFE_VALUE' }));
    const cnm = () => cnmConfig(windowsInput({ keystone: { ...keystone, password: 'hunter2\nOs_auth_url=http://203.0.113.9/v2.0' } }));
    expect(cnm).toThrow(/contrail-cnm-plugin\.conf: the value of "Os_password" holds a line break \(U\+000A\); the file is not written$/);
    expect(() => cnmConfig(windowsInput({ physicalInterface: 'Ethernet1\rControllerIP=203.0.113.9' }))).toThrow(
      /"Adapter" holds a carriage return/,
    );
    expect(() => nodemgrConfig(windowsInput({ controlNodes: '10.0.0.1\u0085x' }))).toThrow(
      /"server_list" holds a control character \(U\+0085\)/,
    );
    const host = { physical: 'Ethernet1', vhost: 'vEthernet (HNSTransparent)', ip: '10.0.0.5', prefix: 24, gateway: '10.0.0.1\nx=y' };
    expect(() => agentConfig(windowsInput(), host, 'win1')).toThrow(
      /contrail-vrouter-agent\.conf: the value of "gateway" holds a line break/,
    );
    for (const attempt of [env, cnm])
      try {
        attempt();
      } catch (err) {
        expect((err as Error).message).not.toContain('hunter2');
      }
  });
});
