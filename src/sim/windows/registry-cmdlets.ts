// The registry in the simulator: Get-ItemProperty and Set-ItemProperty on the keys the roles read and set.
// Some values are derived from the host's state (boot options, pending reboots); the rest live in state.registry.

import type { CmdletSpec } from '../shells/powershell/commands.js';
import { PsError, PsUnmodelled } from '../shells/powershell/errors.js';
import { PsObject, toText } from '../shells/powershell/values.js';
import { perPath } from './per-path.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

const REG_CONTROL = 'hklm:\\system\\currentcontrolset\\control';
const REG_SESSION = 'hklm:\\system\\currentcontrolset\\control\\session manager';
const REG_CBS_PENDING = 'hklm:\\software\\microsoft\\windows\\currentversion\\component based servicing\\rebootpending';
const REG_WU_PENDING = 'hklm:\\software\\microsoft\\windows\\currentversion\\windowsupdate\\auto update\\rebootrequired';

function regKey(path: string): string {
  return path
    .replace(/^Registry::HKEY_LOCAL_MACHINE/i, 'HKLM:')
    .replace(/\//g, '\\')
    .replace(/\\+$/, '')
    .toLowerCase();
}

const SERVICE_PARAMETERS = /^hklm:\\system\\currentcontrolset\\services\\([^\\]+)\\parameters$/;

/**
 * Whether the simulator knows if this key exists: the keys it derives, those in the state, and the Parameters key
 * of a service the host does not have (NSSM writes it when it creates the service). Any other key may exist on a
 * real host, so asking for it is refused rather than answered "Cannot find path".
 */
function isModelledKey(host: WindowsHost, key: string): boolean {
  if ([REG_CONTROL, REG_SESSION, REG_CBS_PENDING, REG_WU_PENDING].includes(key) || key in host.state.registry) return true;
  const service = SERVICE_PARAMETERS.exec(key)?.[1];
  return service !== undefined && host.service(service) === undefined;
}

/** Registry values the roles read, derived from the host's state. Undefined: no such key. */
export function registryValues(host: WindowsHost, path: string): Record<string, unknown> | undefined {
  if (!isModelledKey(host, regKey(path)))
    throw new PsUnmodelled(`groundcrew sim: the registry key '${path}' is not modelled (docs/simulator.md)`);
  switch (regKey(path)) {
    case REG_CONTROL:
      return { SystemStartOptions: host.systemStartOptions(), CurrentUser: 'USERNAME' };
    case REG_SESSION:
      return host.state.pending.fileRename ? { PendingFileRenameOperations: ['\\??\\C:\\Windows\\Temp\\pending.sys', ''] } : {};
    case REG_CBS_PENDING:
      return host.state.pending.cbs ? {} : undefined;
    case REG_WU_PENDING:
      return undefined;
    default:
      return host.state.registry[regKey(path)];
  }
}

function registryPathNotFound(path: string, command: string): PsError {
  return new PsError(
    `Cannot find path '${path}' because it does not exist.`,
    `PathNotFound,Microsoft.PowerShell.Commands.${command}Command`,
    'ObjectNotFound',
  );
}

const getItemProperty: Spec = {
  name: 'Get-ItemProperty',
  params: { Path: { type: 'string', position: 0, aliases: ['LiteralPath'] }, Name: { type: 'string[]', position: 1 } },
  run(host, args, _input, ctx) {
    const path = toText(args.Path);
    const values = registryValues(host, path);
    if (!values) {
      ctx.error(registryPathNotFound(path, 'GetItemProperty'));
      return [];
    }
    const names = args.Name as string[] | undefined;
    if (!names) return [PsObject.from(values)];
    const found = names.filter((n) => Object.keys(values).some((k) => k.toLowerCase() === n.toLowerCase()));
    if (found.length < names.length) {
      ctx.error(
        new PsError(
          `Property ${names.find((n) => !found.includes(n))} does not exist at path ${path}.`,
          'System.Management.Automation.PSArgumentException,Microsoft.PowerShell.Commands.GetItemPropertyCommand',
          'InvalidArgument',
        ),
      );
      if (found.length === 0) return [];
    }
    return [
      new PsObject(
        undefined,
        found.map((n) => [n, Object.entries(values).find(([k]) => k.toLowerCase() === n.toLowerCase())?.[1]]),
      ),
    ];
  },
};

/** Set-ItemProperty on a registry value groundcrew sets (the key must exist, as in the registry provider). */
const setItemProperty: Spec = {
  name: 'Set-ItemProperty',
  params: {
    Path: { type: 'string', position: 0, aliases: ['LiteralPath'] },
    Name: { type: 'string', position: 1, mandatory: true },
    Value: { type: 'object', position: 2 },
    Type: { type: 'string', values: ['String', 'DWord', 'QWord', 'Binary', 'MultiString', 'ExpandString'] },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const path = toText(args.Path);
    const key = path.replace(/\\+$/, '').toLowerCase();
    if (!isModelledKey(host, regKey(path)))
      throw new PsUnmodelled(`groundcrew sim: the registry key '${path}' is not modelled (docs/simulator.md)`, 'Set-ItemProperty');
    const values = host.state.registry[key];
    if (!values) {
      ctx.error(registryPathNotFound(path, 'SetItemProperty'));
      return [];
    }
    const name = toText(args.Name);
    const value = args.Type === 'DWord' || args.Type === 'QWord' ? Number(toText(args.Value)) : toText(args.Value);
    if (values[name] !== value) {
      values[name] = value;
      host.record(`set-itemproperty ${key} ${name}=${value}`);
    }
    return [];
  },
};

export const REGISTRY_CMDLETS: Spec[] = [perPath(getItemProperty), perPath(setItemProperty)];
