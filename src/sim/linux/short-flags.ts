// Single-letter options as coreutils take them: -p, -rf, and `--` to end them.

export function flags(args: string[], known: string): { flags: Set<string>; rest: string[] } {
  const set = new Set<string>();
  const rest: string[] = [];
  let done = false;
  for (const a of args) {
    if (!done && a === '--') done = true;
    else if (!done && /^-[A-Za-z]+$/.test(a) && [...a.slice(1)].every((c) => known.includes(c))) for (const c of a.slice(1)) set.add(c);
    else rest.push(a);
  }
  return { flags: set, rest };
}
