// Issue 39: a line break (or any control character) in a configuration value never reaches a node. Before, a
// newline in the Keystone password, PHYSICAL_INTERFACE or CONTROL_NODES passed validation and became lines of
// their own in /etc/contrail/common_vrouter.env and contrail-cnm-plugin.conf. Each is refused where it is
// written, whichever way YAML spells it (a block scalar, "\n" in double quotes), in every file a value comes from.

import { describe, expect, it } from 'vitest';
import { formatDiagnostic } from '../../../src/inventory/diagnostic.js';
import { parseSecretsFile } from '../../../src/inventory/secrets-file.js';
import { errorsOf, linuxNode, parse, yaml } from './helpers.js';

const instances = (...configuration: string[]) =>
  yaml('instances:', ...linuxNode('a', '10.0.0.1'), 'contrail_configuration:', ...configuration);

describe('a control character in a configuration value', () => {
  it('is refused in instances.yaml with its file:line:col, as a block scalar or an escape in double quotes', () => {
    expect(
      errorsOf(parse(instances('  KEYSTONE_AUTH_ADMIN_PASSWORD: |', '    secret', '    Os_auth_url=http://203.0.113.9/v2.0'))),
    ).toEqual([
      'instances.yaml:8:33: contrail_configuration.KEYSTONE_AUTH_ADMIN_PASSWORD: the value holds a line break (U+000A); a value must be one line of text',
    ]);
    expect(errorsOf(parse(instances('  KEYSTONE_AUTH_ADMIN_USER: "admin\\nLD_PRELOAD=/tmp/x.so"')))).toEqual([
      'instances.yaml:8:29: contrail_configuration.KEYSTONE_AUTH_ADMIN_USER: the value holds a line break (U+000A); a value must be one line of text',
    ]);
    // Any control character, not only line breaks; and in a key that groundcrew does not read too.
    expect(errorsOf(parse(instances('  SOME_KEY: "a\\u001b[2Jb"')))).toEqual([
      'instances.yaml:8:13: contrail_configuration.SOME_KEY: the value holds a control character (U+001B); a value must be one line of text',
    ]);
    // The password never appears in the message.
    expect(errorsOf(parse(instances('  KEYSTONE_AUTH_ADMIN_PASSWORD: "hunter2\\r"'))).join('\n')).not.toContain('hunter2');
  });

  it('is refused in every key that reaches a node file, with its per-key form', () => {
    const cases: [string, string][] = [
      ['PHYSICAL_INTERFACE', 'instances.yaml:8:23: contrail_configuration.PHYSICAL_INTERFACE: the value holds a line break (U+000A)'],
      [
        'WINDOWS_PHYSICAL_INTERFACE',
        'instances.yaml:8:31: contrail_configuration.WINDOWS_PHYSICAL_INTERFACE: the value holds a line break (U+000A)',
      ],
      ['CONTAINER_REGISTRY', 'instances.yaml:8:23: contrail_configuration.CONTAINER_REGISTRY: the value holds a line break (U+000A)'],
      ['CONTROL_NODES', 'instances.yaml:8:18: contrail_configuration.CONTROL_NODES: the value holds a line break (U+000A)'],
    ];
    for (const [key, error] of cases) {
      const errors = errorsOf(parse(instances(`  ${key}: "x\\nControllerIP=203.0.113.9"`)));
      expect(errors[0], key).toBe(`${error}; a value must be one line of text`);
    }
    // One line, but not what the key may hold.
    expect(errorsOf(parse(instances('  PHYSICAL_INTERFACE: eth0;reboot')))).toEqual([
      'instances.yaml:8:23: PHYSICAL_INTERFACE: "eth0;reboot" is not a Linux interface name (up to 15 letters, digits, ".", "_", "-")',
    ]);
    expect(errorsOf(parse(instances('  CONTROL_NODES: 10.0.0.1 ControllerIP=1')))).toEqual([
      'instances.yaml:8:18: CONTROL_NODES: "10.0.0.1 ControllerIP=1" is not addresses separated by commas',
    ]);
    expect(
      errorsOf(
        parse(
          instances('  WINDOWS_PHYSICAL_INTERFACE: "vEthernet (HNSTransparent)"', '  CONTAINER_REGISTRY: registry.example:5000/contrail'),
        ),
      ),
    ).toEqual([]);
  });

  it('is refused in a per-node file and in a role override', () => {
    const nodeFile = yaml('overrides:', '  PHYSICAL_INTERFACE: |-', '    eth0', '    LD_PRELOAD=/tmp/x.so');
    expect(errorsOf(parse(instances(), { 'nodes/a.yaml': nodeFile }))).toEqual([
      'nodes/a.yaml:2:23: overrides.PHYSICAL_INTERFACE: the value holds a line break (U+000A); a value must be one line of text',
    ]);
    const override = yaml(
      'instances:',
      '  a:',
      '    provider: bms',
      '    ip: 10.0.0.1',
      '    roles:',
      '      vrouter:',
      '        CONTROL_NODES: "a\\tb"',
    );
    expect(errorsOf(parse(override))).toEqual([
      'instances.yaml:7:24: instances.a.roles.vrouter.CONTROL_NODES: the value holds a tab (U+0009); a value must be one line of text',
      'instances.yaml:7:24: CONTROL_NODES: "a\\tb" is not addresses separated by commas',
    ]);
  });

  it('is refused in the secrets file, without showing the value', () => {
    const { values, errors } = parseSecretsFile(
      '/etc/groundcrew/secrets.yaml',
      'KEYSTONE_AUTH_ADMIN_PASSWORD: "hunter2\\nOs_auth_url=x"\n',
    );
    expect(values).toEqual({});
    expect(errors.map((d) => formatDiagnostic(d))).toEqual([
      '/etc/groundcrew/secrets.yaml:1:31: KEYSTONE_AUTH_ADMIN_PASSWORD: the value holds a line break (U+000A); a value must be one line of text',
    ]);
    const form = parseSecretsFile('/etc/groundcrew/secrets.yaml', 'CONTROL_NODES: hunter2=1\n');
    expect(form.errors.map((d) => formatDiagnostic(d))).toEqual([
      '/etc/groundcrew/secrets.yaml:1:16: CONTROL_NODES: the value is not addresses separated by commas',
    ]);
  });

  it('lets a PEM block hold line breaks, and nothing else', () => {
    const pem = ['  SSL_KEY: |', '    -----BEGIN PRIVATE KEY-----', '    MIIB', '    -----END PRIVATE KEY-----'];
    expect(errorsOf(parse(instances(...pem)))).toEqual([]);
    expect(errorsOf(parse(instances('  SSL_KEY: "-----BEGIN PRIVATE KEY-----\\nMIIB\\u0007\\n-----END PRIVATE KEY-----"')))).toEqual([
      'instances.yaml:8:12: contrail_configuration.SSL_KEY: the value holds a control character (U+0007); a PEM block may hold line breaks, nothing else',
    ]);
  });
});
