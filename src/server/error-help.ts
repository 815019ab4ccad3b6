// What to do about an error code, read from docs/errors.md: the operator's table is the one source.

import { readFileSync } from 'node:fs';

export interface ErrorHelp {
  meaning: string;
  todo: string;
}

export function loadErrorHelp(file: string): Map<string, ErrorHelp> {
  const help = new Map<string, ErrorHelp>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return help;
  }
  for (const line of text.split('\n')) {
    const cells = /^\| `(GC_[A-Z_]+)`[^|]*\| (.*) \| (.*) \|$/.exec(line);
    if (cells) help.set(cells[1] as string, { meaning: cells[2] as string, todo: cells[3] as string });
  }
  return help;
}
