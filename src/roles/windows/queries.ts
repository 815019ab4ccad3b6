// PowerShell fact queries several phases share, each saying "absent" itself: the facts script treats any
// error a query did not expect as a fact that could not be read (roles/facts.ts).

import { psQuote } from '../../dataplane/quote.js';

/** A service's status ('Running', 'Stopped', ...) or $null when there is no such service. */
export function serviceStatus(name: string): string {
  return `$s = Get-Service -Name ${psQuote(name)} -ErrorAction SilentlyContinue; if ($s) { $s.Status.ToString() } else { $null }`;
}

/** True once the Containers feature is installed (not pending): its module's cmdlets exist from then on. */
export const CONTAINERS_INSTALLED = "(Get-WindowsFeature -Name 'Containers').InstallState.ToString() -eq 'Installed'";

/** An elevated token carries the High Mandatory Level label (S-1-16-12288) in `whoami /groups`. */
export const ELEVATED = "(@(whoami /groups) -join ' ').Contains('S-1-16-12288')";
export const ELEVATED_FACT = { id: 'session.elevated', ps: ELEVATED };
