// New-VMSwitch (Hyper-V) on a simulated host: what Windows refuses for an adapter it does not have. The simulator's
// one switch is the Contrail switch the CNM plugin makes on its adapter (windows-host.ts switchExists); a switch
// made by hand is not modelled, and a call that would make one is refused by name.

import type { CmdletSpec } from '../shells/powershell/commands.js';
import { PsError, PsUnmodelled } from '../shells/powershell/errors.js';
import { toText } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';

/**
 * New-VMSwitch -NetAdapterName: the Hyper-V module looks each name up as an MSFT_NetAdapter (by Name) and fails
 * when none is found, before any switch is made (Microsoft.HyperV.PowerShell's NetworkingUtilities
 * FindExternalPortDeviceId, NetworkUtilities_NicNotFound), as "Cannot find a physical network adapter named X."
 * (PlagueHO/LabBuilder#265 quotes it under New-VMSwitch); the VirtualizationException's category is ObjectNotFound
 * as Set-VMSwitch's own (pawelgnatowski/WSL2-Network-Fix#9). Parameters: windows-powershell-docs
 * winserver2019-ps/Hyper-V/New-VMSwitch.md.
 */
const newVMSwitch: CmdletSpec<WindowsHost> = {
  name: 'New-VMSwitch',
  params: {
    Name: { type: 'string', position: 0, mandatory: true, aliases: ['SwitchName'] },
    NetAdapterName: { type: 'string[]', aliases: ['InterfaceAlias'] },
    NetAdapterInterfaceDescription: { type: 'string[]', aliases: ['InterfaceDescription'] },
    SwitchType: { type: 'string', values: ['Internal', 'Private'] },
    AllowManagementOS: { type: 'object' },
    Notes: { type: 'string' },
    MinimumBandwidthMode: { type: 'string', values: ['Default', 'Weight', 'Absolute', 'None'] },
    EnableIov: { type: 'object' },
    EnablePacketDirect: { type: 'object' },
    EnableEmbeddedTeaming: { type: 'object' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const names = args.NetAdapterName === undefined ? [] : [args.NetAdapterName].flat().map(toText);
    const have = new Set(host.adapters().map((a) => a.name.toLowerCase()));
    const missing = names.find((n) => !have.has(n.toLowerCase()));
    // Written as an error record, not thrown (the cmdlet's CreateObjects catches and displays it): no switch remains.
    if (missing !== undefined) {
      ctx.error(
        new PsError(
          `Cannot find a physical network adapter named ${missing}.`,
          'ObjectNotFound,Microsoft.HyperV.PowerShell.Commands.NewVMSwitch',
          'ObjectNotFound',
          'New-VMSwitch',
        ),
      );
      return [];
    }
    throw new PsUnmodelled(
      `New-VMSwitch ${toText(args.Name)}: a switch made by hand (the simulator models only the Contrail switch the CNM plugin makes)`,
      'New-VMSwitch',
    );
  },
};

export const VMSWITCH_CMDLETS: CmdletSpec<WindowsHost>[] = [newVMSwitch];
