// How the agent's service starts: a script that writes the vhost's current ifName into the agent's config,
// then runs the agent, as contrail-controller's entrypoint.ps1 (src/vnsw/agent/contrail/windows/msi/) does
// and c-a-d's contrail_vrouter_windows runs it (NSSM: powershell.exe -NoProfile -File entrypoint.ps1). Each
// switch the CNM plugin makes gives the vhost a new interface, and a new ifName: the agent restarted after
// the plugin made a new one (by NSSM, or the node's restart) must not read a stale name= from the config.
// Differs from entrypoint.ps1 on purpose: the vhost is found by its two names (vhost-adapter.ts), not by
// `vEthernet (*)`, which would also match the overlay's vNIC, and exactly one must be found.

import { psQuote } from '../../dataplane/quote.js';
import type { WindowsRoleInput } from '../input.js';
import { AGENT_CONFIG } from './contrail-config.js';
import { vhostNames } from './vhost-adapter.js';

/** A path without spaces: NSSM passes AppParameters as they are, and a quoted path would need quotes kept. */
export const AGENT_START = 'C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-vrouter-agent-start.ps1';
export const POWERSHELL_EXE = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';
export const AGENT_START_PARAMETERS = `-NoProfile -ExecutionPolicy Bypass -File ${AGENT_START}`;

/** The script's lines (Windows PowerShell 5.1). */
export function agentStartScript(input: WindowsRoleInput, agentExe: string): string[] {
  const [on2016, on2019] = vhostNames(input.physicalInterface).map(psQuote);
  return [
    '# Written by groundcrew: the vhost adapter ifName into name= of the agent config, then the agent.',
    "$ErrorActionPreference = 'Stop'",
    `$conf = ${psQuote(AGENT_CONFIG)}`,
    `$v = @(Get-NetAdapter | Where-Object { $_.Name -eq ${on2016} -or $_.Name -eq ${on2019} })`,
    'if ($v.Count -ne 1) { throw "expected one vhost adapter, found $($v.Count)" }',
    '$lines = @(Get-Content -Path $conf)',
    'if (@($lines | Where-Object { $_ -match \'^name=\' }).Count -ne 1) { throw "$conf has no single name= line" }',
    '$lines = @($lines | ForEach-Object { if ($_ -match \'^name=\') { "name=$($v[0].ifName)" } else { $_ } })',
    'Set-Content -Path $conf -Value $lines',
    `& ${psQuote(agentExe)} "--config_file=$conf"`,
    'exit $LASTEXITCODE',
  ];
}
