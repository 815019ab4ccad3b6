// New-Object for the one .NET type a role constructs: System.IO.Pipes.NamedPipeClientStream, whose Connect
// is how contrail-windows-tools' Invoke-DiagnosticCheck.ps1 sees the CNM plugin "serves on named pipe API
// server". Any other type is refused by name: the simulator does not model it.

import { type CmdletSpec, obj } from '../shells/powershell/commands.js';
import { PsTerminatingError, PsUnmodelled } from '../shells/powershell/errors.js';
import { toText } from '../shells/powershell/values.js';
import type { WindowsHost } from './windows-host.js';

const PIPE_CLIENT = /^(system\.)?io\.pipes\.namedpipeclientstream$/i;

/** A connect that finds no server instance within its timeout (NamedPipeClientStream.Connect(Int32)). */
function timedOut(): PsTerminatingError {
  return new PsTerminatingError(
    'Exception calling "Connect" with "1" argument(s): "The operation has timed out."',
    'TimeoutException',
    'NotSpecified: (:) [], MethodInvocationException',
    undefined,
    'System.Management.Automation.MethodInvocationException',
  );
}

function pipeClient(host: WindowsHost, server: string, pipe: string) {
  if (server !== '.') throw new PsUnmodelled(`a NamedPipeClientStream to server '${server}' (only '.', this host)`, 'New-Object');
  return obj(
    {
      Connect: {
        kind: 'method',
        call: (timeout: unknown) => {
          if (timeout === undefined) throw new PsUnmodelled('NamedPipeClientStream.Connect() without a timeout', 'New-Object');
          const served = host.pipes().some((p) => p.toLowerCase() === pipe.toLowerCase());
          if (!served || (pipe.toLowerCase() === 'contrail' && host.state.faults.pipeNotServing)) throw timedOut();
          return undefined;
        },
      },
      Dispose: { kind: 'method', call: () => undefined },
    },
    'System.IO.Pipes.NamedPipeClientStream',
  );
}

export const newObjectCmdlet: CmdletSpec<WindowsHost> = {
  name: 'New-Object',
  params: { TypeName: { type: 'string', position: 0 }, ArgumentList: { type: 'object', position: 1, aliases: ['Args'] } },
  run(host, args) {
    const type = toText(args.TypeName ?? '');
    if (!PIPE_CLIENT.test(type)) throw new PsUnmodelled(`New-Object ${type}`, 'New-Object');
    const list = [args.ArgumentList ?? []].flat().map(toText);
    if (list.length !== 2) throw new PsUnmodelled(`a NamedPipeClientStream made with ${list.length} argument(s)`, 'New-Object');
    return [pipeClient(host, list[0] as string, list[1] as string)];
  },
};
