// The Containers module's network cmdlets (Server 2016 with the Containers feature; not on 2019, modules.ts):
// what c-a-d's install_software_Win32NT.yml uses on 2016 to clear container networks and contrail-windows-ci's
// diagnostic check reads ("has created a root Contrail HNS network": Get-ContainerNetwork ... ContrailRootNetwork).

import { type CmdletSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { PsObject, toText } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';
import type { HnsNetwork } from './windows-state.js';

type Spec = CmdletSpec<WindowsHost>;

function view(n: HnsNetwork) {
  const subnet = n.subnets?.[0];
  return obj(
    {
      Name: n.name,
      Id: n.id,
      Mode: n.type,
      NetworkAdapterName: n.adapter ?? '',
      SubnetPrefix: subnet?.addressPrefix ?? '',
      GatewayAddress: subnet?.gatewayAddress ?? '',
    },
    'Microsoft.Containers.PowerShell.Objects.ContainerNetwork',
  );
}

const getContainerNetwork: Spec = {
  name: 'Get-ContainerNetwork',
  params: { Name: { type: 'string[]', position: 0 }, Id: { type: 'string[]' } },
  run(host, args) {
    const names = (args.Name as string[] | undefined)?.map((n) => n.toLowerCase());
    return host
      .hnsNetworks()
      .filter((n) => !names || names.includes(n.name.toLowerCase()))
      .map(view);
  },
};

const removeContainerNetwork: Spec = {
  name: 'Remove-ContainerNetwork',
  params: { Name: { type: 'string[]', position: 0 }, InputObject: { type: 'object' }, Force: { type: 'switch' } },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    const items = args.Name !== undefined ? (args.Name as string[]) : args.InputObject !== undefined ? [args.InputObject] : input;
    for (const item of items) {
      const name = item instanceof PsObject ? toText(item.get('Name')) : toText(item);
      const gone = host.state.hnsNetworks.find((n) => n.name.toLowerCase() === name.toLowerCase());
      if (!gone) {
        ctx.error(
          new PsError(
            `Network '${name}' not found.`,
            'NetworkNotFound,Remove-ContainerNetwork',
            'ObjectNotFound',
            'Remove-ContainerNetwork',
          ),
        );
        continue;
      }
      host.removeNetwork(gone.name);
      host.record(`remove-container-network ${gone.name}`);
    }
    return [];
  },
};

export const CONTAINER_CMDLETS: Spec[] = [getContainerNetwork, removeContainerNetwork];
