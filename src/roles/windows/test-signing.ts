// Test signing, for the unsigned vRouter driver: configured in the BCD store, active only after a reboot.
// c-a-d (install_software_Win32NT.yml) runs `Bcdedit.exe -set TESTSIGNING ON`: no identifier, {current}.
// The BCD store needs an elevated token, and Secure Boot refuses testsigning: both are read first, and
// either stalls the phase with its own error before anything is changed or a reboot is asked for.

import { errors } from '../../errors.js';
import { change, type Phase } from '../phase.js';
import { compare, type Resource } from '../resource.js';
import { parseBcdTestSigning } from './parsers.js';
import { ELEVATED, ELEVATED_FACT } from './queries.js';

export const TEST_SIGNING_FACTS = [
  ELEVATED_FACT,
  {
    id: 'bcd.current',
    ps: `if (${ELEVATED}) { $o = @(bcdedit /enum '{current}'); if ($LASTEXITCODE -ne 0) { throw "bcdedit /enum exited with $LASTEXITCODE" }; $o } else { $null }`,
  },
  {
    id: 'startOptions',
    ps: "(Get-ItemProperty -Path 'HKLM:\\SYSTEM\\CurrentControlSet\\Control' -Name 'SystemStartOptions').SystemStartOptions",
  },
];

/**
 * Secure Boot, read only with an elevated token (Confirm-SecureBootUEFI needs one). A BIOS host has no Secure
 * Boot, and there the cmdlet fails with "Cmdlet not supported on this platform" (windows-powershell-docs
 * SecureBoot/Confirm-SecureBootUEFI.md): that answer is "off"; any other failure stays a fact not read.
 */
const SECURE_BOOT_FACT = {
  id: 'secureBoot',
  ps: `if (${ELEVATED}) { try { Confirm-SecureBootUEFI } catch { if ($_.Exception.Message -like 'Cmdlet not supported on this platform*') { $false } else { throw } } } else { $null }`,
};

export function testSigningState(facts: ReadonlyMap<string, unknown>): { configured: boolean; active: boolean } {
  return {
    configured: parseBcdTestSigning(facts.get('bcd.current') as string[] | null),
    active: /\bTESTSIGNING\b/i.test(String(facts.get('startOptions') ?? '')),
  };
}

function testSigning(): Resource {
  return {
    name: 'test-signing',
    facts: [...TEST_SIGNING_FACTS, SECURE_BOOT_FACT],
    test(facts) {
      const { configured, active } = testSigningState(facts);
      return compare({ Configured: [configured, true], Active: [active, true] });
    },
    async set({ exec, facts, signal }) {
      const { configured } = testSigningState(facts);
      if (facts.get('session.elevated') !== true)
        throw errors.GC_NOT_ELEVATED(
          'test signing: the session has no elevated token (whoami /groups shows no High Mandatory Level), so bcdedit cannot open the boot configuration store; nothing was changed',
        );
      if (!configured && facts.get('secureBoot') === true)
        throw errors.GC_SECURE_BOOT(
          'test signing: Confirm-SecureBootUEFI says Secure Boot is on, and Windows refuses testsigning under it ("The value is protected by Secure Boot policy"); nothing was changed and no reboot was asked for',
        );
      // Configured but not active: nothing to run, only the reboot it waits for.
      if (!configured) await change(exec, 'bcdedit /set testsigning on\nexit $LASTEXITCODE', 'enable test signing', { signal });
      return { changed: !configured, rebootRequested: true };
    },
  };
}

export function windowsTestSigning(): Phase {
  return { name: 'testSigning', resources: [testSigning()] };
}
