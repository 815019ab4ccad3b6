// Debug DLLs (WINDOWS_DEBUG_DLLS_PATH on the control host) copied to C:\Windows\System32, by content hash.

import { createHash } from 'node:crypto';
import { psQuote } from '../../dataplane/quote.js';
import type { WindowsRoleInput } from '../input.js';
import { change } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { stdinOf, writeFromStdin } from './write-from-stdin.js';

const SYSTEM32 = 'C:\\Windows\\System32';

export function debugDlls(input: WindowsRoleInput): Resource | undefined {
  const dlls = input.debugDlls ?? [];
  if (dlls.length === 0) return undefined;
  const wanted = dlls.map((d) => ({
    ...d,
    path: `${SYSTEM32}\\${d.name}`,
    hash: createHash('sha256').update(d.content).digest('hex').toUpperCase(),
  }));
  return {
    name: 'debug-dlls',
    facts: wanted.map((d, i) => ({
      id: `dll.${i}`,
      ps: `$h = Get-FileHash -LiteralPath ${psQuote(d.path)} -Algorithm SHA256 -ErrorAction SilentlyContinue; if ($h) { $h.Hash } else { $null }`,
    })),
    test: (facts) => compare(Object.fromEntries(wanted.map((d, i) => [d.name, [facts.get(`dll.${i}`), d.hash]]))),
    async set({ exec, facts, signal }) {
      for (const [i, d] of wanted.entries()) {
        if (facts.get(`dll.${i}`) === d.hash) continue;
        // The bytes travel base64 on stdin: a DLL does not fit on a command line.
        await change(exec, writeFromStdin(d.path), `copy ${d.name} to System32`, { stdin: stdinOf(d.content), signal });
      }
      return { changed: true, rebootRequested: false };
    },
  };
}
