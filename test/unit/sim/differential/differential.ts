// Runs a corpus in both engines and judges each snippet: agreement, a refusal by name, a 5.1/7 difference
// explained (both halves checked), or a difference, which fails.

import { compared, isRefusal } from './outcome.js';
import { type RawOutcome, runInRealPwsh } from './real-pwsh.js';
import type { Compared, Snippet } from './snippet.js';
import { runInSimulator } from './ts-engine.js';

export type Verdict =
  | { kind: 'agrees' | 'refused' | 'explained' }
  | { kind: 'differs'; real: Compared; simulated: Compared; field: keyof Compared };

const FIELDS: (keyof Compared)[] = ['stdout', 'exitCode', 'errors'];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function judge(snippet: Snippet, realRaw: RawOutcome, simulatedRaw: RawOutcome): Verdict {
  if (isRefusal(simulatedRaw)) return { kind: 'refused' };
  const real = compared(realRaw);
  const simulated = compared(simulatedRaw);
  const { differs51 } = snippet;
  for (const field of FIELDS) {
    if (differs51 && field in differs51.pwsh7) {
      if (!same(real[field], differs51.pwsh7[field]) || !same(simulated[field], differs51.ps51[field]))
        return { kind: 'differs', real, simulated, field };
    } else if (!same(real[field], simulated[field])) return { kind: 'differs', real, simulated, field };
  }
  return { kind: differs51 ? 'explained' : 'agrees' };
}

export function runDifferential(corpus: readonly Snippet[]): Map<string, Verdict> {
  const names = new Set<string>();
  for (const s of corpus) {
    if (names.has(s.name)) throw new Error(`differential corpus: two snippets named '${s.name}'`);
    names.add(s.name);
  }
  const real = runInRealPwsh(corpus);
  const verdicts = new Map<string, Verdict>();
  for (const snippet of corpus) {
    const realRaw = real.get(snippet.name);
    if (!realRaw) throw new Error(`real pwsh gave no answer for '${snippet.name}'`);
    verdicts.set(snippet.name, judge(snippet, realRaw, runInSimulator(snippet.script)));
  }
  return verdicts;
}

export function summary(verdicts: Map<string, Verdict>): string {
  const count = (kind: Verdict['kind']) => [...verdicts.values()].filter((v) => v.kind === kind).length;
  return `differential: ${verdicts.size} snippets, ${count('agrees')} agree, ${count('explained')} differ as 5.1 and 7 do (explained), ${count('refused')} refused by the simulator, ${count('differs')} differ`;
}
