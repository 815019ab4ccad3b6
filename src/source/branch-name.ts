// Whether a configured branch is a name Git can have: the rules of git-check-ref-format(1) for refs/heads/<name>,
// and --branch's own (no leading dash). The name goes into a clone's --branch, a fetch refspec and a path under
// .git/refs: one Git would refuse ("a b", "x:y", "../../x", "--upload-pack=...") is refused when the config is read,
// in one line naming the key, not retried forever as a fetch that can never succeed.

/** Why `name` cannot be a branch, or undefined when it can. */
export function branchNameProblem(name: string): string | undefined {
  if (name === '') return 'is empty';
  if (name.startsWith('-')) return 'must not start with "-" (git would read it as an option)';
  if (name === '@' || name === 'HEAD') return `must not be "${name}" (git reads it as the current commit)`;
  for (const c of name) {
    const code = c.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return 'must not hold control characters';
    if (' ~^:?*[\\'.includes(c)) return `must not hold ${JSON.stringify(c)} (git-check-ref-format)`;
  }
  if (name.includes('..')) return 'must not hold ".." (git-check-ref-format)';
  if (name.includes('@{')) return 'must not hold "@{" (git-check-ref-format)';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'must not start or end with "/" or hold "//"';
  if (name.endsWith('.')) return 'must not end with "."';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return `must not have a part starting with "." ("${part}")`;
    if (part.endsWith('.lock')) return `must not have a part ending with ".lock" ("${part}")`;
  }
  return undefined;
}
