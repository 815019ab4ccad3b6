// Windows services in the simulator: Get/Start/Stop/Restart/Set/New-Service and sc.exe.

import { type CmdletContext, type CmdletSpec, type NativeSpec, obj } from '../powershell/commands.js';
import { PsError } from '../powershell/errors.js';
import { psEnum, SERVICE_STATUS, START_MODE, toItems, toText } from '../powershell/values.js';
import type { ServiceState, StartType, WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;
const START_TYPES = ['Automatic', 'Manual', 'Disabled'] as const;

function view(svc: ServiceState) {
  return obj(
    {
      Name: svc.name,
      DisplayName: svc.displayName,
      Status: psEnum(SERVICE_STATUS, svc.status),
      StartType: psEnum(START_MODE, svc.startType),
      ServicesDependedOn: svc.dependsOn,
    },
    'System.ServiceProcess.ServiceController',
  );
}

function notFound(name: string, cmdlet: string): PsError {
  return new PsError(
    `Cannot find any service with service name '${name}'.`,
    `NoServiceFoundForGivenName,Microsoft.PowerShell.Commands.${cmdlet}ServiceCommand`,
    `ObjectNotFound: (${name}:String) [${cmdlet}-Service], ServiceCommandException`,
  );
}

/** Service names from -Name or from piped service objects. */
function names(args: Record<string, unknown>, input: unknown[]): string[] {
  if (args.Name !== undefined) return args.Name as string[];
  return input.map((item) => toText((item as { get?: (k: string) => unknown }).get?.('Name') ?? item));
}

function each(host: WindowsHost, list: string[], cmdlet: string, ctx: CmdletContext, act: (svc: ServiceState) => string | undefined): void {
  for (const name of list) {
    const svc = host.service(name);
    if (!svc) {
      ctx.error(notFound(name, cmdlet));
      continue;
    }
    const problem = act(svc);
    if (problem) ctx.error(new PsError(problem, `CouldNotStartService,Microsoft.PowerShell.Commands.${cmdlet}ServiceCommand`, 'OpenError'));
  }
}

const getService: Spec = {
  name: 'Get-Service',
  params: { Name: { type: 'string[]', position: 0, aliases: ['ServiceName'] } },
  run(host, args, _input, ctx) {
    if (args.Name === undefined) return Object.values(host.state.services).map(view);
    const out = [];
    for (const name of args.Name as string[]) {
      const svc = host.service(name);
      if (svc) out.push(view(svc));
      else ctx.error(notFound(name, 'Get'));
    }
    return out;
  },
};

const startService: Spec = {
  name: 'Start-Service',
  params: { Name: { type: 'string[]', position: 0 }, PassThru: { type: 'switch' } },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    each(host, names(args, input), 'Start', ctx, (svc) => host.startService(svc.name));
    return [];
  },
};

const stopService: Spec = {
  name: 'Stop-Service',
  params: { Name: { type: 'string[]', position: 0 }, Force: { type: 'switch' }, PassThru: { type: 'switch' } },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    each(host, names(args, input), 'Stop', ctx, (svc) => host.stopService(svc.name, Boolean(args.Force)));
    return [];
  },
};

const restartService: Spec = {
  name: 'Restart-Service',
  params: { Name: { type: 'string[]', position: 0 }, Force: { type: 'switch' } },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    each(host, names(args, input), 'Restart', ctx, (svc) => host.stopService(svc.name, Boolean(args.Force)) ?? host.startService(svc.name));
    return [];
  },
};

const setService: Spec = {
  name: 'Set-Service',
  params: {
    Name: { type: 'string[]', position: 0 },
    StartupType: { type: 'string', values: START_TYPES },
    Status: { type: 'string', values: ['Running', 'Stopped'] },
  },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    each(host, names(args, input), 'Set', ctx, (svc) => {
      const startType = args.StartupType as StartType | undefined;
      if (startType && svc.startType !== startType) {
        svc.startType = startType;
        host.record(`set-service ${svc.name} startup ${startType}`);
      }
      if (args.Status === 'Running') return host.startService(svc.name);
      if (args.Status === 'Stopped') return host.stopService(svc.name, false);
      return undefined;
    });
    return [];
  },
};

const newService: Spec = {
  name: 'New-Service',
  params: {
    Name: { type: 'string', position: 0, mandatory: true },
    BinaryPathName: { type: 'string', position: 1, mandatory: true },
    DisplayName: { type: 'string' },
    Description: { type: 'string' },
    StartupType: { type: 'string', values: START_TYPES },
    DependsOn: { type: 'string[]' },
  },
  supportsShouldProcess: true,
  run(host, args, _input, ctx) {
    const name = toText(args.Name);
    if (host.service(name)) {
      ctx.error(
        new PsError(
          `Service '${name} (${name})' cannot be created due to the following error: The specified service already exists`,
          'CouldNotNewService,Microsoft.PowerShell.Commands.NewServiceCommand',
          'PermissionDenied',
        ),
      );
      return [];
    }
    const svc: ServiceState = {
      name,
      displayName: args.DisplayName === undefined ? name : toText(args.DisplayName),
      status: 'Stopped',
      startType: (args.StartupType as StartType | undefined) ?? 'Automatic',
      binaryPath: toText(args.BinaryPathName),
      dependsOn: toItems(args.DependsOn).map(toText),
    };
    host.state.services[name.toLowerCase()] = svc;
    host.record(`new-service ${name}`);
    return [view(svc)];
  },
};

/** sc.exe: `delete NAME` (Remove-Service does not exist in Windows PowerShell 5.1) and `query NAME`. */
const sc: NativeSpec<WindowsHost> = {
  names: ['sc', 'sc.exe'],
  run(host, argv) {
    const [verb, name] = argv;
    const svc = name ? host.service(name) : undefined;
    if (!svc)
      return {
        stdout: `[SC] OpenService FAILED 1060:\r\n\r\nThe specified service does not exist as an installed service.\r\n\r\n`,
        exitCode: 1060,
      };
    if (verb?.toLowerCase() === 'delete') {
      host.stopService(svc.name, true);
      delete host.state.services[svc.name.toLowerCase()];
      host.record(`delete-service ${svc.name}`);
      return { stdout: '[SC] DeleteService SUCCESS\r\n', exitCode: 0 };
    }
    if (verb?.toLowerCase() === 'query') {
      const state = svc.status === 'Running' ? '4  RUNNING' : '1  STOPPED';
      return {
        stdout: `\r\nSERVICE_NAME: ${svc.name}\r\n        TYPE               : 10  WIN32_OWN_PROCESS\r\n        STATE              : ${state}\r\n`,
        exitCode: 0,
      };
    }
    return { stdout: `[SC] ${verb}: unknown command in the simulated subset\r\n`, exitCode: 1 };
  },
};

export const SERVICE_CMDLETS: Spec[] = [getService, startService, stopService, restartService, setService, newService];
export const SERVICE_NATIVES: NativeSpec<WindowsHost>[] = [sc];
