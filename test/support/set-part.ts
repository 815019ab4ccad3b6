// The set's own script in a command sent by a pass: a set's one command also reads the phase's facts after it
// (src/roles/read-after.ts), and tests that look at what a set ran compare only the set's part.

/** The set's script of `script`: itself when nothing was appended to it. */
export function setPart(script: string): string {
  const bash = /^\(\n([\s\S]*)\n\)\ngc_set=\$\?\n/.exec(script);
  if (bash) return bash[1] as string;
  const at = script.search(/\nif \(-not \$\?\) \{ exit 1 \}\n'GC-READ-AFTER-[0-9a-f]{16}'\n/);
  return at >= 0 ? script.slice(0, at) : script;
}
