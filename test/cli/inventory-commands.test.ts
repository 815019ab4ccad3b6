// The real `groundcrew` binary, run as an operator runs it: exit codes, stdout, stderr.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDemo } from '../support/demo-process.js';
import { waitUntil } from '../support/wait-until.js';

const ROOT = join(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');

function groundcrew(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function tempRepo(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gc-inventory-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('groundcrew validate', () => {
  it('accepts the example repo', () => {
    const run = groundcrew('validate', 'inventory-repo-example');
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('inventory-repo-example: valid, 6 nodes (3 Linux, 3 Windows)\n');
    expect(run.code).toBe(0);
  });

  it('accepts each contrail-ansible-deployer example, printing the hint for the stray key', () => {
    for (const file of ['bms_example', 'bms_win_example', 'bms_win_full_example', 'bms_win_no_openstack_example', 'bms_with_qos_example']) {
      const run = groundcrew('validate', `test/fixtures/cad-examples/${file}.yaml`);
      expect(run.code, `${file}: ${run.stderr}`).toBe(0);
    }
    const qos = groundcrew('validate', 'test/fixtures/cad-examples/bms_with_qos_example.yaml');
    expect(qos.stderr).toContain(
      'test/fixtures/cad-examples/bms_with_qos_example.yaml:54:1: warning: top-level key "KEYSTONE_AUTH_URL_VERSION" is ignored',
    );
  });

  it('exits 1 on a line break in a configuration value (issue 39), naming where and never showing the value', () => {
    const repo = tempRepo({
      'instances.yaml': [
        'instances:\n  a:\n    provider: bms\n    ip: 10.0.0.1\n    roles:\n      vrouter:\n',
        'contrail_configuration:\n  KEYSTONE_AUTH_ADMIN_PASSWORD: |\n    hunter2\n    Os_auth_url=http://203.0.113.9/v2.0\n',
        '  PHYSICAL_INTERFACE: "eth0\\nLD_PRELOAD=/tmp/x.so"\n',
      ].join(''),
    });
    const run = groundcrew('validate', repo);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toEqual([
      `${repo}/instances.yaml:8:33: contrail_configuration.KEYSTONE_AUTH_ADMIN_PASSWORD: the value holds a line break (U+000A); a value must be one line of text`,
      `${repo}/instances.yaml:11:23: contrail_configuration.PHYSICAL_INTERFACE: the value holds a line break (U+000A); a value must be one line of text`,
      `${repo}/instances.yaml:11:23: PHYSICAL_INTERFACE: "eth0\\nLD_PRELOAD=/tmp/x.so" is not a Linux interface name (up to 15 letters, digits, ".", "_", "-")`,
      `3 errors: ${repo} is not a valid inventory`,
      '',
    ]);
    expect(run.stderr).not.toContain('hunter2');
  });

  it('exits 1 listing every error with a path the operator can open', () => {
    const repo = tempRepo({
      'instances.yaml':
        'instances:\n  a:\n    provider: bms\n    ip: 10.0.0.1\n    roles:\n      vroutr:\n  b:\n    provider: bms\n    ip: 10.0.0.1\n',
      'nodes/c.yaml': 'versions:\n  contrail: "5.0.2"\n',
    });
    const run = groundcrew('validate', repo);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.split('\n')).toEqual([
      `${repo}/instances.yaml:6:7: role "vroutr" is not a known role (did you mean "vrouter"?)`,
      `${repo}/instances.yaml:9:9: instances.b.ip: 10.0.0.1 is already the address of node "a" (line 4)`,
      `${repo}/nodes/c.yaml:1:1: nodes/c.yaml is for node "c", but instances.yaml has no instance "c"`,
      `3 errors: ${repo} is not a valid inventory`,
      '',
    ]);
  });

  it('refuses a 10 MB instances.yaml by size, quickly', () => {
    const repo = tempRepo({ 'instances.yaml': `instances:\n${'#'.repeat(10 * 1024 * 1024)}\n` });
    const run = groundcrew('validate', repo);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${repo}/instances.yaml:1:1: refused: larger than 4.0 MiB (10.0 MiB)`);
  });

  it('exits 2 when there is nothing to read', () => {
    const run = groundcrew('validate', join(tmpdir(), 'no-such-inventory-here'));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no-such-inventory-here: no such file or directory/);
    const empty = groundcrew('validate', tempRepo({ 'README.md': 'not an inventory' }));
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/no instances\.yaml here/);
  });
});

describe('groundcrew plan', () => {
  it('prints each node with its phases and reasons', () => {
    const run = groundcrew('plan', 'inventory-repo-example');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('win-compute-1  windows  192.0.2.31  roles: vrouter, win_cnm_plugin');
    expect(run.stdout).toMatch(/ {2}2\. testSigning {2}WINDOWS_ENABLE_TEST_SIGNING is set/);
    expect(run.stdout).toContain('  waits for ctrl1: Keystone runs on ctrl1 (192.0.2.10); it must be verified first');
    expect(run.stdout).toContain('versions: contrail 5.0.1 (nodes/win-compute-1.yaml), docker 18.09 (groundcrew.yaml)');
  });

  it('--json matches the documented, committed shape exactly (test/fixtures/plan-example.json)', () => {
    const run = groundcrew('plan', '--json', 'inventory-repo-example');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(readFileSync(join(ROOT, 'test/fixtures/plan-example.json'), 'utf8')));
  });

  it('--json never carries a password from the inventory', () => {
    const run = groundcrew('plan', '--json', 'inventory-repo-example');
    expect(run.stdout).not.toContain('Contrail123!');
    expect(run.stdout).not.toContain('c0ntrail123');
  });

  it('refuses to plan an invalid inventory', () => {
    const repo = tempRepo({ 'instances.yaml': 'instances:\n  a:\n    provider: kvm\n    ip: 10.0.0.1\n' });
    const run = groundcrew('plan', repo);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${repo}/instances.yaml:3:15: provider "kvm" is not known`);
  });
});

describe('groundcrew demo', () => {
  it('serves the example cluster converging on simulated hosts; Ctrl-C stops it and cleans up', async () => {
    const demo = startDemo(['--port', '0', '--reboot-seconds', '0.2']);
    const { child } = demo;
    await waitUntil(
      '6 of 6 nodes verified, or the demo to end',
      () => demo.stdout().includes('6 of 6 nodes verified') || child.exitCode !== null,
      // Converging six nodes took over 60 s with the suite on two busy cores.
      { timeoutMs: 150_000 },
    );
    expect(demo.stdout()).toContain('6 of 6 nodes verified');
    const url = /status page: +(http:\/\/127\.0\.0\.1:\d+)\//.exec(demo.stdout())?.[1] as string;
    const repo = /the repo: +(\S+)/.exec(demo.stdout())?.[1] as string;
    expect(existsSync(join(repo, '.git'))).toBe(true);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<table id="nodes">');
    const nodes = (await (await fetch(`${url}/api/nodes`)).json()) as { name: string; state: string; rebootCount: number }[];
    // One reboot each for the fresh test-signing hosts; none for the signed-vRouter host or Linux.
    expect(Object.fromEntries(nodes.map((n) => [n.name, [n.state, n.rebootCount]]))).toEqual({
      ctrl1: ['verified', 0],
      'compute-l1': ['verified', 0],
      'compute-l2': ['verified', 0],
      'win-compute-1': ['verified', 1],
      'win-compute-2': ['verified', 1],
      'win-compute-3': ['verified', 0],
    });
    // Computes wait at their openstack phase for ctrl1 (Keystone) to be verified.
    const lines = demo.stdout().split('\n');
    expect(lines.findIndex((l) => /ctrl1 +verified/.test(l))).toBeLessThan(
      lines.findIndex((l) => /compute-l1 +converging +vrouter/.test(l)),
    );
    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(demo.stderr()).toBe('');
    expect(existsSync(repo)).toBe(false);
  }, 240_000);
});
