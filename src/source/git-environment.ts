// The environment git runs in: what it needs, the site's proxy and trust settings passed through, and the SSH
// command of a deploy key. Nothing else of the daemon's environment reaches git: GIT_DIR, GIT_CONFIG_*,
// GIT_EXEC_PATH and the like would change what git does, and so what root runs.

/** Passed through as the daemon got them: curl's proxy variables (both cases: curl reads HTTPS_PROXY,
 * ALL_PROXY and NO_PROXY upper-case, http_proxy only lower-case), git's CA file, the SSH agent. */
const PASSED = [
  ...['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy'],
  ...['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'NO_PROXY'],
  'GIT_SSL_CAINFO',
  'SSH_AUTH_SOCK',
] as const;

/** The git variables set here or passed through: simple-git refuses any other GIT_* it was not told about. */
export const GIT_VARIABLES = ['GIT_TERMINAL_PROMPT', 'GIT_SSH_COMMAND', 'GIT_SSL_CAINFO'] as const;

export interface SshSettings {
  /** The deploy key (ssh's IdentityFile): only it is offered, never the agent's keys. */
  keyFile?: string;
  /** The Git server's host keys; without it, the daemon user's ~/.ssh/known_hosts and /etc/ssh/ssh_known_hosts. */
  knownHostsFile?: string;
}

export function gitEnvironment(ambient: NodeJS.ProcessEnv, ssh: SshSettings = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: ambient.PATH ?? '/usr/bin:/bin',
    HOME: ambient.HOME ?? '/',
    GIT_TERMINAL_PROMPT: '0',
    GIT_SSH_COMMAND: sshCommand(ssh),
  };
  for (const name of PASSED) {
    const value = ambient[name];
    if (value !== undefined && value !== '') env[name] = value;
  }
  return env;
}

/** The proxy URLs git will use (for redaction: a proxy's password must not reach a log line either). */
export function proxyUrls(env: Record<string, string>): string[] {
  return PASSED.filter((name) => /proxy$/i.test(name) && !/^no_/i.test(name)).flatMap((name) => env[name] ?? []);
}

/**
 * `ssh` for git (GIT_SSH_COMMAND, which git runs through `sh -c`): every word single-quoted for the shell, the
 * paths given as ssh options in double quotes with ssh's own escapes, so a path with spaces, quotes, `$(…)` or
 * `%` stays one path. Batch mode, and the host key must already be known (StrictHostKeyChecking=yes, files
 * never updated): root's source never trusts a new server silently (docs/operations.md, "The Git source").
 */
export function sshCommand({ keyFile, knownHostsFile }: SshSettings): string {
  const words = ['ssh', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', 'UpdateHostKeys=no'];
  if (keyFile) words.push('-o', `IdentityFile=${sshPath(keyFile)}`, '-o', 'IdentitiesOnly=yes');
  if (knownHostsFile) words.push('-o', `UserKnownHostsFile=${sshPath(knownHostsFile)}`);
  return words.map(shellWord).join(' ');
}

/** Why `path` cannot be given to ssh as a file name, or undefined: ssh expands `${VAR}` in these options, with no escape. */
export function sshPathProblem(path: string): string | undefined {
  if (!path.startsWith('/')) return 'must be an absolute path';
  if ([...path].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f')) return 'must not hold control characters';
  if (path.includes('${')) return 'must not hold "${" (ssh would read it as an environment variable)';
  return undefined;
}

/** A file name as an ssh_config value: in double quotes, `\` and `"` escaped, `%` doubled (ssh_config(5), TOKENS). */
function sshPath(path: string): string {
  const problem = sshPathProblem(path);
  if (problem) throw new Error(`ssh file ${JSON.stringify(path)} ${problem}`);
  return `"${path.replace(/[\\"]/g, '\\$&').replace(/%/g, '%%')}"`;
}

function shellWord(word: string): string {
  return /^[\w=./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
