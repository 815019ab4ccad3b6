// What both engines' answers are reduced to before they are compared: the text a console shows, the exit code,
// and the class of each error (from the error view both print: 5.1's, which 7 keeps as NormalView).

import type { Compared } from './snippet.js';

export const REFUSED_ID = 'NotSupportedBySimulator';

const FQID = /^\s*\+ FullyQualifiedErrorId : (.*)$/;
const CATEGORY = /^\s*\+ CategoryInfo\s+: (\w+): .*?(?:, (\w+))?$/;

export function compared(raw: { stdout: string; stderr: string; exitCode: number }): Compared {
  const errors: string[] = [];
  let category = '';
  for (const line of raw.stderr.split(/\r?\n/)) {
    const cat = CATEGORY.exec(line);
    if (cat) category = `${cat[1]} | ${cat[2] ?? ''}`;
    const id = FQID.exec(line);
    if (id) {
      errors.push(`${id[1]} | ${category}`);
      category = '';
    }
  }
  return { stdout: raw.stdout.replace(/\r\n/g, '\n'), exitCode: raw.exitCode, errors };
}

/** The simulator refused the snippet by name: a construct outside its subset, not an answer. */
export const isRefusal = (raw: { stderr: string }) => raw.stderr.includes(`FullyQualifiedErrorId : ${REFUSED_ID}`);
