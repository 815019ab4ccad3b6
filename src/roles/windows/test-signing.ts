// Test signing, for the unsigned vRouter driver: configured in the BCD store, active only after a reboot.

import { change, type Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { parseBcdTestSigning } from './parsers.js';

export const TEST_SIGNING_FACTS = [
  { id: 'bcd.current', ps: "@(bcdedit /enum '{current}')" },
  {
    id: 'startOptions',
    ps: "(Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control' -Name 'SystemStartOptions').SystemStartOptions",
  },
];

export function testSigningState(facts: ReadonlyMap<string, unknown>): { configured: boolean; active: boolean } {
  return {
    configured: parseBcdTestSigning(facts.get('bcd.current') as string[] | null),
    active: /\bTESTSIGNING\b/i.test(String(facts.get('startOptions') ?? '')),
  };
}

function testSigning(): Resource {
  return {
    name: 'test-signing',
    facts: TEST_SIGNING_FACTS,
    test(facts) {
      const { configured, active } = testSigningState(facts);
      return compare({ Configured: [configured, true], Active: [active, true] });
    },
    async set({ exec, facts, signal }) {
      const { configured } = testSigningState(facts);
      // Configured but not active: nothing to run, only the reboot it waits for.
      if (!configured) await change(exec, "bcdedit /set '{current}' testsigning on", 'enable test signing', { signal });
      return { changed: !configured, rebootRequested: true };
    },
  };
}

export function windowsTestSigning(): Phase {
  return { name: 'testSigning', resources: [testSigning()] };
}
