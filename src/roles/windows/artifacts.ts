// Artifacts of a Contrail Windows image (MSIs, certificate) extracted into C:\Artifacts, once per image.

import { psQuote } from '../../dataplane/quote.js';
import { setByCommand } from '../phase.js';
import { compare, type Resource } from '../resource.js';

export const ARTIFACTS = 'C:\\Artifacts';

export function artifacts(kind: 'vrouter' | 'cnm-plugin', image: string, files: string[]): Resource {
  const marker = `${ARTIFACTS}\\${kind}.image`;
  const id = `artifacts.${kind}`;
  return {
    name: `artifacts/${kind}`,
    facts: [
      {
        id: `${id}.image`,
        ps: `if (Test-Path -LiteralPath ${psQuote(marker)}) { (Get-Content -LiteralPath ${psQuote(marker)} -Raw).Trim() } else { $null }`,
      },
      ...files.map((f, i) => ({ id: `${id}.file${i}`, ps: `Test-Path -LiteralPath ${psQuote(`${ARTIFACTS}\\${f}`)}` })),
    ],
    test: (facts) =>
      compare({
        Image: [facts.get(`${id}.image`), image],
        ...Object.fromEntries(files.map((f, i) => [f, [facts.get(`${id}.file${i}`), true]])),
      }),
    async set({ exec, signal }) {
      const script = [
        `docker pull ${psQuote(image)} | Out-Null`,
        `if ($LASTEXITCODE -ne 0) { throw ${psQuote(`docker pull ${image} failed`)} }`,
        `docker run --rm -v ${psQuote(`${ARTIFACTS}:C:\\Artifacts`)} ${psQuote(image)} | Out-Null`,
        `if ($LASTEXITCODE -ne 0) { throw ${psQuote(`extracting ${image} failed`)} }`,
        `Set-Content -LiteralPath ${psQuote(marker)} -Value ${psQuote(image)} -Encoding ASCII`,
      ].join('\n');
      return setByCommand(exec, script, `extract ${image}`, { signal });
    },
  };
}
