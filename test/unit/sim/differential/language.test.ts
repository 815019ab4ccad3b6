// The differential suite, language part: every behaviour docs/simulator.md claims for the simulated PowerShell,
// run in the TypeScript interpreter and in real pwsh 7.6.9, compared on stdout, exit code and error classes.
// A difference fails unless the simulator refused the construct by name, or the snippet says how 5.1 and 7
// differ there (and both engines give what it says).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from './corpus/errors.js';
import { FLOW } from './corpus/flow.js';
import { FUNCTIONS } from './corpus/functions.js';
import { MULTILINE } from './corpus/multiline.js';
import { OPERATORS } from './corpus/operators.js';
import { PIPELINES } from './corpus/pipelines.js';
import { STRINGS } from './corpus/strings.js';
import { VALUES } from './corpus/values.js';
import { runDifferential, summary, type Verdict } from './differential.js';

const CORPUS = [...STRINGS, ...OPERATORS, ...VALUES, ...FLOW, ...ERRORS, ...FUNCTIONS, ...PIPELINES, ...MULTILINE];

let verdicts = new Map<string, Verdict>();

beforeAll(() => {
  verdicts = runDifferential(CORPUS);
}, 300_000);

afterAll(() => {
  console.log(summary(verdicts));
});

describe('the simulated PowerShell against real pwsh', () => {
  for (const snippet of CORPUS) {
    it(snippet.name, () => {
      const verdict = verdicts.get(snippet.name);
      expect(verdict, snippet.script).toBeDefined();
      if (verdict?.kind === 'differs') {
        expect({ script: snippet.script, field: verdict.field, simulated: verdict.simulated }).toEqual({
          script: snippet.script,
          field: verdict.field,
          simulated: verdict.real,
        });
      }
    });
  }
});
