// Windows services in the simulator: Get/Start/Stop/Restart/Set/New-Service and sc.exe.

import { type CmdletContext, type CmdletSpec, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { psEnum, SERVICE_STATUS, START_MODE, toItems, toText } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';
import type { ServiceState, StartType } from './windows-state.js';

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
  if (args.Name !== undefined) return [args.Name as string | string[]].flat();
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
    // One String (Set-Service.md), unlike Get-, Start-, Stop- and Restart-Service.
    Name: { type: 'string', position: 0 },
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

const SC_USAGE =
  'DESCRIPTION:\r\n        Modifies a service entry in the registry and Service Database.\r\nUSAGE:\r\n        sc <server> config [service name] <option1> <option2>...\r\n';
const SC_START: Record<string, StartType> = { auto: 'Automatic', demand: 'Manual', disabled: 'Disabled' };
const SC_START_CODE: Record<StartType, string> = { Automatic: '2   AUTO_START', Manual: '3   DEMAND_START', Disabled: '4   DISABLED' };

/** `key= value` pairs, sc.exe's syntax (the space after `=` is required); undefined when malformed. */
function scOptions(args: string[]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const key = args[i] as string;
    if (!key.endsWith('=') || args[i + 1] === undefined) return undefined;
    out[key.slice(0, -1).toLowerCase()] = args[i + 1] as string;
  }
  return out;
}

function queryConfig(svc: ServiceState): string {
  const [first, ...more] = svc.dependsOn;
  return [
    '[SC] QueryServiceConfig SUCCESS',
    '',
    `SERVICE_NAME: ${svc.name}`,
    '        TYPE               : 10  WIN32_OWN_PROCESS',
    `        START_TYPE         : ${SC_START_CODE[svc.startType]}`,
    '        ERROR_CONTROL      : 1   NORMAL',
    `        BINARY_PATH_NAME   : ${svc.binaryPath}`,
    '        LOAD_ORDER_GROUP   :',
    '        TAG                : 0',
    `        DISPLAY_NAME       : ${svc.displayName}`,
    `        DEPENDENCIES       : ${first ?? ''}`,
    ...more.map((d) => `                           : ${d}`),
    '        SERVICE_START_NAME : LocalSystem',
    '',
  ].join('\r\n');
}

function queryFailure(svc: ServiceState): string {
  const steps = (svc.failure?.actions ?? '').split('/').filter(Boolean);
  const actions: string[] = [];
  for (let i = 0; i + 1 < steps.length; i += 2) {
    const kind = { restart: 'RESTART', reboot: 'REBOOT', run: 'RUN PROCESS' }[steps[i] as string] ?? 'NONE';
    actions.push(`${kind} -- Delay = ${steps[i + 1]} milliseconds.`);
  }
  return [
    '[SC] QueryServiceConfig2 SUCCESS',
    '',
    `SERVICE_NAME: ${svc.name}`,
    `        RESET_PERIOD (in seconds)    : ${svc.failure?.resetSeconds ?? 0}`,
    '        REBOOT_MESSAGE               :',
    '        COMMAND_LINE                 :',
    ...actions.map((a, i) => (i === 0 ? `        FAILURE_ACTIONS              : ${a}` : `                                       ${a}`)),
    '',
  ].join('\r\n');
}

/** sc.exe: `delete`, `query`, `qc`, `qfailure`, `config` and `failure` (Remove-Service does not exist in Windows PowerShell 5.1). */
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
      host.deleteService(svc.name);
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
    const options = scOptions(argv.slice(2));
    switch (verb?.toLowerCase()) {
      case 'qc':
        return { stdout: queryConfig(svc), exitCode: 0 };
      case 'qfailure':
        return { stdout: queryFailure(svc), exitCode: 0 };
      case 'config': {
        if (!options) return { stdout: SC_USAGE, exitCode: 1639 };
        const start = options.start && SC_START[options.start.toLowerCase()];
        if (options.start && !start) return { stdout: SC_USAGE, exitCode: 1639 };
        if (options.binpath !== undefined) svc.binaryPath = options.binpath;
        if (start) svc.startType = start;
        if (options.depend !== undefined) svc.dependsOn = options.depend.split('/').filter(Boolean);
        host.record(`sc-config ${svc.name}`);
        return { stdout: '[SC] ChangeServiceConfig SUCCESS\r\n', exitCode: 0 };
      }
      case 'failure': {
        if (!options || options.reset === undefined || !/^\d+$/.test(options.reset)) return { stdout: SC_USAGE, exitCode: 1639 };
        const actions = options.actions ?? '';
        if (!/^((restart|reboot|run|)\/\d+\/?)*$/i.test(actions)) return { stdout: SC_USAGE, exitCode: 1639 };
        svc.failure = { resetSeconds: Number(options.reset), actions: actions.toLowerCase().replace(/\/$/, '') };
        host.record(`sc-failure ${svc.name}`);
        return { stdout: '[SC] ChangeServiceConfig2 SUCCESS\r\n', exitCode: 0 };
      }
    }
    return { stdout: `[SC] ${verb}: unknown command in the simulated subset\r\n`, exitCode: 1 };
  },
};

export const SERVICE_CMDLETS: Spec[] = [getService, startService, stopService, restartService, setService, newService];
export const SERVICE_NATIVES: NativeSpec<WindowsHost>[] = [sc];
