// The one redaction of credentials in URLs: whatever shows a source URL, a proxy URL, or git's stderr (a log
// line, an error, the API, a page) passes it through here. `https://user:token@host/repo.git` keeps its host.

/**
 * `scheme://userinfo@`: the userinfo is everything up to the last `@` before the host (RFC 3986 §3.2.1 says a
 * userinfo's `@` is percent-encoded, but a token pasted unencoded must not leave its tail behind). Stops at
 * whitespace, quotes and a slash, so one URL in a line of text does not swallow the next. The scheme's length is
 * bounded: every log line passes here, and an unbounded one made a long `a+b+c…` (base64) quadratic.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#"'`<>\\]*@/gi;

/** Every `scheme://user:secret@` in `text` with its userinfo replaced by `***` (an ssh user's name goes too: simpler than guessing which is a token). */
export function redactUrls(text: string): string {
  return text.replace(USERINFO, '$1***@');
}

/**
 * A redactor that also knows the credentials of the URLs it is given (a source URL, a proxy from the
 * environment), so they are masked wherever they turn up, even without their `scheme://` (git quoting a
 * remote in another form, an error that decoded it), raw and percent-decoded. What counts as a credential: a
 * password; over http(s) a user name alone as long as a token (`https://ghp_…@github.com`), not `git` of
 * `ssh://git@host`, which would mask every "git" in a line.
 */
export function urlRedactor(urls: readonly (string | undefined)[]): (text: string) => string {
  const secrets = new Set<string>();
  for (const url of urls) for (const secret of credentials(url)) secrets.add(secret);
  const longestFirst = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = redactUrls(text);
    for (const secret of longestFirst) out = out.split(secret).join('***');
    return out;
  };
}

/** Shorter ones are masked only inside a URL: a password "abc" must not mask every "abc" of a log line. */
const MIN_SECRET = 4;
/** A user name alone is taken for a token from this length on (GitHub's are 40 characters, GitLab's 20 or more). */
const MIN_TOKEN = 16;

function credentials(url: string | undefined): string[] {
  const m = url === undefined ? undefined : /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)@/i.exec(url);
  if (!m) return [];
  const [scheme, userinfo] = [(m[1] as string).toLowerCase(), m[2] as string];
  const colon = userinfo.indexOf(':');
  const user = colon < 0 ? userinfo : userinfo.slice(0, colon);
  const found = colon < 0 ? [] : [userinfo.slice(colon + 1)];
  if (colon < 0 && /^https?$/.test(scheme) && decoded(user).length >= MIN_TOKEN) found.push(user);
  return [...found, ...found.map(decoded)].filter((secret) => secret.length >= MIN_SECRET);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
