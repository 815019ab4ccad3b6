// The daemon config's Git source keys: the deploy key and known_hosts paths taken from the config file's
// directory, and a path ssh would expand refused with the file and line.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDaemonConfig } from '../../../src/cli/daemon-config.js';

const dir = mkdtempSync(join(tmpdir(), 'gc-config-source-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function load(source: string[]) {
  const file = join(dir, 'groundcrew.yaml');
  writeFileSync(file, ['source:', '  url: git@git.example:infra/cluster.git', ...source.map((l) => `  ${l}`), ''].join('\n'));
  return { file, result: loadDaemonConfig(file, {}) };
}

describe('source.sshKeyFile and source.knownHostsFile', () => {
  it("are read from the config file's directory when relative", () => {
    const { result } = load(['sshKeyFile: keys/deploy key', 'knownHostsFile: ./known_hosts']);
    if (!result.ok) throw new Error(result.errors.map((e) => e.message).join('\n'));
    expect(result.config.source.sshKeyFile).toBe(join(dir, 'keys', 'deploy key'));
    expect(result.config.source.knownHostsFile).toBe(join(dir, 'known_hosts'));
  });

  it('refuses a path ssh would expand, naming the key, file and line', () => {
    const { file, result } = load(['sshKeyFile: /etc/groundcrew/deploy-key', `knownHostsFile: "/etc/\${HOME}/known_hosts"`]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map((e) => `${e.file}:${e.line}: ${e.message}`)).toEqual([
      `${file}:4: source.knownHostsFile: must not hold "\${" (ssh would read it as an environment variable)`,
    ]);
  });
});
