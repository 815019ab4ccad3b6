// git's environment: only the variables it needs and the site's proxy, CA and agent ones; the SSH command's
// paths survive the shell and ssh's own parsing (checked with the real sh and `ssh -G`).

import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { gitEnvironment, sshCommand, sshPathProblem } from '../../../src/source/git-environment.js';

describe('gitEnvironment', () => {
  it('passes the proxy, CA and SSH agent variables, and nothing that changes what git runs', () => {
    const env = gitEnvironment({
      PATH: '/usr/bin',
      HOME: '/root',
      https_proxy: 'http://proxy:3128',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      ALL_PROXY: 'socks5://proxy:1080',
      GIT_SSL_CAINFO: '/etc/ssl/site-ca.pem',
      SSH_AUTH_SOCK: '/run/agent.sock',
      GIT_DIR: '/elsewhere',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.sshCommand',
      GIT_EXEC_PATH: '/tmp/evil',
      LD_PRELOAD: '/tmp/evil.so',
    });
    expect(Object.keys(env).sort()).toEqual(
      [
        ...['ALL_PROXY', 'GIT_SSH_COMMAND', 'GIT_SSL_CAINFO', 'GIT_TERMINAL_PROMPT', 'HOME', 'HTTPS_PROXY', 'PATH'],
        ...['SSH_AUTH_SOCK', 'https_proxy', 'no_proxy'],
      ].sort(),
    );
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
  });
});

describe('sshCommand', () => {
  // As git runs it (`sh -c "$GIT_SSH_COMMAND" ...`), asked to print the options ssh ended up with.
  const resolved = (command: string) =>
    execFileSync('sh', ['-c', `${command} -G git.example`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('keeps a path with spaces, quotes, $(…) and backslashes one path: no shell syntax, no ssh token', () => {
    const hostile = `/srv/keys/it's "a" key $(touch /tmp/gc-pwned) \\ end`;
    const options = resolved(sshCommand({ keyFile: hostile, knownHostsFile: `${hostile} 100%` }));
    expect(options).toContain(`\nidentityfile ${hostile}\n`);
    // UserKnownHostsFile is shown token-expanded: the doubled % came back as one.
    expect(options).toContain(`\nuserknownhostsfile ${hostile} 100%\n`);
    expect(options).toMatch(/\nstricthostkeychecking true\n/);
    expect(options).toMatch(/\nbatchmode yes\n/);
    expect(options).toMatch(/\nidentitiesonly yes\n/);
  });

  it('without a key: batch mode and known host keys only, the default identities', () => {
    const options = resolved(sshCommand({}));
    expect(options).toMatch(/\nstricthostkeychecking true\n/);
    expect(options).toMatch(/\nidentitiesonly no\n/);
  });

  it('refuses what ssh would expand with no escape, and relative paths', () => {
    expect(sshPathProblem(`/keys/\${HOME}/k`)).toMatch(/environment variable/);
    expect(sshPathProblem('keys/k')).toMatch(/absolute/);
    expect(sshPathProblem('/keys/a\nb')).toMatch(/control/);
    expect(sshPathProblem("/keys/it's 100% fine")).toBeUndefined();
    expect(() => sshCommand({ keyFile: `/k/\${X}` })).toThrow(/environment variable/);
  });
});
