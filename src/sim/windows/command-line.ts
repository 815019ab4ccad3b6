// How a Windows program splits its command line (CommandLineToArgvW, simplified): quotes group, and are
// dropped; backslashes are literal.

export function splitCommandLine(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let quoted = false;
  let has = false;
  for (const ch of line) {
    if (ch === '"') {
      quoted = !quoted;
      has = true;
    } else if (!quoted && (ch === ' ' || ch === '\t')) {
      if (has) args.push(current);
      current = '';
      has = false;
    } else {
      current += ch;
      has = true;
    }
  }
  if (has) args.push(current);
  return args;
}
