// PowerShell fact queries several phases share, each saying "absent" itself: the facts script treats any
// error a query did not expect as a fact that could not be read (roles/facts.ts).

import { psQuote } from '../../dataplane/quote.js';

/** A service's status ('Running', 'Stopped', ...) or $null when there is no such service. */
export function serviceStatus(name: string): string {
  return `$s = Get-Service -Name ${psQuote(name)} -ErrorAction SilentlyContinue; if ($s) { $s.Status.ToString() } else { $null }`;
}
