// Which Compose, remembered on the node: real bash runs the fact against stand-in CLIs that log each run, so
// a hit is seen to run none, and every change that can alter the answer (an upgrade without a reboot, a plugin
// installed, a reboot) or any tampering with what is kept (garbled, forged, swapped for a link) asks again.

import { execFileSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { COMPOSE_CLI_FACT, composeCli, composeCliQuery } from '../../../../src/roles/linux/compose-cli.js';
import { linuxFactsScript, readFactRecords } from '../../../../src/roles/linux/fact-records.js';

const root = mkdtempSync(join(tmpdir(), 'gc-compose-cache-'));
const bin = join(root, 'bin');
const home = join(root, 'home');
const plugin = join(home, '.docker', 'cli-plugins', 'docker-compose');
const cache = { dir: join(root, 'run', 'groundcrew', 'compose-cli'), bootId: join(root, 'boot_id') };
const log = join(root, 'runs.log');
const answerFile = join(cache.dir, 'answer');

/** docker: `compose` answers the plugin's version when the plugin is installed (as docker/cli finds it), else refuses. */
function installDocker(pluginVersion: string) {
  const script = [
    '#!/bin/sh',
    `echo "docker $*" >> ${log}`,
    `if [ "$1" = compose ] && [ -x ${plugin} ]; then echo ${pluginVersion}; exit 0; fi`,
    `echo "docker: '$1' is not a docker command." >&2; exit 1`,
  ].join('\n');
  writeFileSync(join(bin, 'docker'), `${script}\n`, { mode: 0o755 });
}

function installPlugin() {
  mkdirSync(join(home, '.docker', 'cli-plugins'), { recursive: true });
  writeFileSync(plugin, '#!/bin/sh\n', { mode: 0o755 });
}

function installV1(version: string) {
  writeFileSync(join(bin, 'docker-compose'), `#!/bin/sh\necho "docker-compose $*" >> ${log}\necho ${version}\n`, { mode: 0o755 });
}

const boot = (id: string) => writeFileSync(cache.bootId, `${id}\n`);
const BOOT_A = '3f1c1b4e-8d7a-4b7e-9a51-0c2f6a1e2b3c';
const BOOT_B = '9b2d7c10-1f2e-4c3d-8e4f-5a6b7c8d9e0f';

/** One read of the fact on real bash: what it answered and which CLIs ran. */
function read() {
  writeFileSync(log, '');
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', linuxFactsScript([composeCliQuery(cache)])], {
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home },
    encoding: 'utf8',
  });
  const facts = readFactRecords(out, new Set([COMPOSE_CLI_FACT]), 'probe');
  const cli = composeCli(facts);
  return { said: cli ? `${cli.command} ${cli.version}` : null, runs: readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) };
}

const ASKED_V2 = ['docker compose version --short'];

beforeEach(() => {
  rmSync(root, { recursive: true, force: true });
  for (const d of [bin, home, join(root, 'run', 'groundcrew')]) mkdirSync(d, { recursive: true });
  boot(BOOT_A);
  installDocker('2.20.2');
  installPlugin();
});

describe('which Compose, remembered on the node', () => {
  it('the first read asks the CLI and keeps the answer; the next runs no CLI at all', () => {
    expect(read()).toEqual({ said: 'docker compose 2.20.2', runs: ASKED_V2 });
    // The key: the boot, then each file that exists by its place in the list (docker 1, the home plugin 4).
    expect(readFileSync(answerFile, 'utf8')).toBe(`${BOOT_A}\n1 ${bin}/docker\n4 ${plugin}\nv2 2.20.2\n`);
    expect(read()).toEqual({ said: 'docker compose 2.20.2', runs: [] });
  });

  it('an upgrade without a reboot is seen: a binary replaced, even by one with an older mtime (a package build time)', () => {
    read();
    installDocker('2.29.1');
    // What dpkg and rpm do: the new file carries its package's mtime, which may be older than the cache.
    utimesSync(join(bin, 'docker'), new Date('2021-06-01T00:00:00Z'), new Date('2021-06-01T00:00:00Z'));
    expect(read()).toEqual({ said: 'docker compose 2.29.1', runs: ASKED_V2 });
    expect(read()).toEqual({ said: 'docker compose 2.29.1', runs: [] });
    // Only the plugin replaced (docker-compose-plugin upgraded alone), one nanosecond apart (touch: Node rounds to µs).
    execFileSync('touch', ['-d', '2024-01-01 00:00:00.000000000', plugin]);
    expect(read().runs).toEqual(ASKED_V2);
    execFileSync('touch', ['-d', '2024-01-01 00:00:00.000000001', plugin]);
    expect(read().runs).toEqual(ASKED_V2);
    expect(read().runs).toEqual([]);
  });

  it('v1 is kept too; installing the v2 plugin, or removing v1, asks again', () => {
    rmSync(plugin);
    installV1('1.29.2');
    expect(read()).toEqual({ said: 'docker-compose 1.29.2', runs: ['docker compose version --short', 'docker-compose version --short'] });
    expect(read().runs).toEqual([]);
    installPlugin();
    expect(read()).toEqual({ said: 'docker compose 2.20.2', runs: ASKED_V2 });
    rmSync(plugin);
    rmSync(join(bin, 'docker-compose'));
    expect(read()).toEqual({ said: null, runs: ['docker compose version --short'] });
    // Neither is nothing to keep: asked every time.
    expect(read().runs).toEqual(['docker compose version --short']);
  });

  it('a reboot asks again', () => {
    read();
    boot(BOOT_B);
    expect(read().runs).toEqual(ASKED_V2);
    expect(read().runs).toEqual([]);
  });

  it('plugins the key does not follow (cliPluginsExtraDirs in ~/.docker/config.json) are asked every time', () => {
    writeFileSync(join(home, '.docker', 'config.json'), '{"cliPluginsExtraDirs":["/opt/docker-plugins"]}\n');
    read();
    expect(read().runs).toEqual(ASKED_V2);
    // A config.json without it is part of the key: editing it asks again.
    writeFileSync(join(home, '.docker', 'config.json'), '{"auths":{}}\n');
    read();
    expect(read().runs).toEqual([]);
  });

  const tampered: [string, (kept: string) => void][] = [
    ['truncated', (kept) => writeFileSync(answerFile, kept.slice(0, -4))],
    ['a line added', (kept) => writeFileSync(answerFile, `${kept}v1 1.0.0\n`)],
    ['no final newline', (kept) => writeFileSync(answerFile, kept.slice(0, -1))],
    [
      'another version, kept under another boot',
      (kept) => writeFileSync(answerFile, kept.replace(BOOT_A, BOOT_B).replace('2.20.2', '9.9.9')),
    ],
    [
      'another version, kept for other files',
      (kept) => writeFileSync(answerFile, kept.replace(`/docker\n`, `/dockerd\n`).replace('2.20.2', '9.9.9')),
    ],
    ['a version that is not one', (kept) => writeFileSync(answerFile, kept.replace('2.20.2', '$(reboot)'))],
    ['binary bytes', () => writeFileSync(answerFile, Buffer.from([0xff, 0x00, 0x0a]))],
    ['empty', () => writeFileSync(answerFile, '')],
    [
      'a link to a file that says the same',
      (kept) => {
        writeFileSync(join(root, 'elsewhere'), kept);
        rmSync(answerFile);
        symlinkSync(join(root, 'elsewhere'), answerFile);
      },
    ],
    ['a reference gone', () => rmSync(join(cache.dir, 'ref.1'))],
    ['a reference touched', () => utimesSync(join(cache.dir, 'ref.4'), new Date(), new Date())],
    ["the directory not root's", () => chownSync(cache.dir, 65534, 65534)],
  ];
  for (const [what, tamper] of tampered)
    it(`a kept answer ${what} is not trusted: the CLI is asked, and says what is true`, () => {
      installDocker('2.20.2');
      read();
      tamper(readFileSync(answerFile, 'latin1'));
      expect(read()).toEqual({ said: 'docker compose 2.20.2', runs: ASKED_V2 });
    });

  it('the directory swapped for a link is neither read nor written through', () => {
    rmSync(join(root, 'run', 'groundcrew'), { recursive: true });
    mkdirSync(join(root, 'target'));
    mkdirSync(join(root, 'run', 'groundcrew'));
    symlinkSync(join(root, 'target'), cache.dir);
    expect(read().runs).toEqual(ASKED_V2);
    expect(read().runs).toEqual(ASKED_V2);
    expect(readFileSync(log, 'utf8')).not.toBe('');
    expect(() => readFileSync(join(root, 'target', 'answer'))).toThrow();
  });
});
