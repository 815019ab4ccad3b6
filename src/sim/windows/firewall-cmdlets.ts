// Windows Firewall profiles in the simulator (NetSecurity module): c-a-d turns the three off
// (win_firewall state disabled); contrail-windows-ci's diagnostic check warns while any is on.

import { type CmdletSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;
const PROFILES = ['Domain', 'Private', 'Public'] as const;
type Profile = (typeof PROFILES)[number];

function profiles(names: string[] | undefined, cmdlet: string, ctx: { error(e: PsError): void }): Profile[] {
  if (!names) return [...PROFILES];
  return names.flatMap((n) => {
    const p = PROFILES.find((x) => x.toLowerCase() === n.toLowerCase());
    if (!p)
      ctx.error(
        new PsError(
          `No MSFT_NetFirewallProfile objects found with property 'Name' equal to '${n}'.`,
          `CmdletizationQuery_NotFound_Name,${cmdlet}`,
          'ObjectNotFound',
          cmdlet,
        ),
      );
    return p ? [p] : [];
  });
}

const getNetFirewallProfile: Spec = {
  name: 'Get-NetFirewallProfile',
  params: { Name: { type: 'string[]', position: 0, aliases: ['Profile'] }, All: { type: 'switch' } },
  run(host, args, _input, ctx) {
    return profiles(args.Name as string[] | undefined, 'Get-NetFirewallProfile', ctx).map((p) =>
      obj(
        { Name: p, Enabled: host.state.firewall[p] },
        'Microsoft.Management.Infrastructure.CimInstance#root/standardcimv2/MSFT_NetFirewallProfile',
      ),
    );
  },
};

const setNetFirewallProfile: Spec = {
  name: 'Set-NetFirewallProfile',
  params: {
    Name: { type: 'string[]', position: 0, aliases: ['Profile'] },
    All: { type: 'switch' },
    Enabled: { type: 'string', values: ['True', 'False', 'NotConfigured'] },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    if (!host.state.elevated)
      throw new PsError('Access is denied.', 'Windows System Error 5,Set-NetFirewallProfile', 'PermissionDenied', 'Set-NetFirewallProfile');
    for (const p of profiles(args.Name as string[] | undefined, 'Set-NetFirewallProfile', ctx)) {
      if (args.Enabled === undefined) continue;
      const on = args.Enabled !== 'False';
      if (host.state.firewall[p] !== on) host.record(`firewall ${p} ${on ? 'on' : 'off'}`);
      host.state.firewall[p] = on;
    }
    return [];
  },
};

export const FIREWALL_CMDLETS: Spec[] = [getNetFirewallProfile, setNetFirewallProfile];
