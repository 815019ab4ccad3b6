// The credential of an http(s) source URL given to git without ever being on a command line: any local user reads
// every process's arguments in /proc/PID/cmdline, but a process's environment (/proc/PID/environ, mode 0400) only
// its own user and root can. git gets the URL without its userinfo, and a credential helper (gitcredentials(7))
// scoped to the URL's origin that prints the user and token from the environment it inherits. The helper list
// is emptied first, so no helper of the daemon user's or the system's git config is asked for the credential, or
// handed it to store (`credential.helper=store` would write it to ~/.git-credentials).

import { controlCharacter } from '../control-characters.js';

/** What git connects to, and what it needs in its environment to authenticate there. */
export interface GitRemote {
  /** The URL without its credential. */
  url: string;
  /** For the processes that reach the server (clone, fetch): empty for a URL without a credential. */
  env: Record<string, string>;
}

const USER = 'GROUNDCREW_GIT_USERNAME';
const PASSWORD = 'GROUNDCREW_GIT_PASSWORD';
/** Asked `get`, it prints the two variables' values; `store` and `erase` are ignored. git writes its question on stdin. */
const HELPER = `!f() { cat >/dev/null; test "$1" = get || exit 0; printf 'username=%s\\npassword=%s\\n' "$${USER}" "$${PASSWORD}"; }; f`;

/** The config variables git reads from its environment (git-config(1), GIT_CONFIG_COUNT) and the helper's: for simple-git's allow list. */
export const CREDENTIAL_VARIABLES = [
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_KEY_0',
  'GIT_CONFIG_VALUE_0',
  'GIT_CONFIG_KEY_1',
  'GIT_CONFIG_VALUE_1',
] as const;

/**
 * `url` split into what git may see on its command line and the credential it gets otherwise. Only http(s) URLs
 * carry one (an ssh URL's user is a login name, not a secret); the userinfo is everything up to the last `@`
 * before the path, percent-decoded as git decodes it. A token alone (`https://TOKEN@host`) is sent as the user
 * with an empty password, as GitHub and GitLab take it.
 */
export function gitRemote(url: string): GitRemote {
  const parts = credential(url);
  if (!parts) return { url, env: {} };
  const { origin, rest, user, password } = parts;
  const problem = credentialProblem(user, password);
  if (problem) throw new Error(`source.url: ${problem}`);
  return {
    url: `${origin}${rest}`,
    env: {
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: `credential.${origin}.helper`,
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: `credential.${origin}.helper`,
      GIT_CONFIG_VALUE_1: HELPER,
      [USER]: user,
      [PASSWORD]: password,
    },
  };
}

/** Why the credential of `url` cannot be given to git, or undefined (for the config's check, with its location). */
export function gitCredentialProblem(url: string): string | undefined {
  const parts = credential(url);
  return parts && credentialProblem(parts.user, parts.password);
}

function credential(url: string): { origin: string; rest: string; user: string; password: string } | undefined {
  const m = /^(https?:\/\/)([^/?#]*)@([^/?#]*)(.*)$/is.exec(url);
  if (!m) return undefined;
  const [scheme, userinfo, host, rest] = m.slice(1) as [string, string, string, string];
  const colon = userinfo.indexOf(':');
  return {
    origin: `${scheme}${host}`,
    rest,
    user: decoded(colon < 0 ? userinfo : userinfo.slice(0, colon)),
    password: colon < 0 ? '' : decoded(userinfo.slice(colon + 1)),
  };
}

/** A line break would add lines of its own to the helper's answer (git's credential protocol is line-based). */
function credentialProblem(user: string, password: string): string | undefined {
  const found = controlCharacter(user + password);
  return found && `the credential holds ${found}`;
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
