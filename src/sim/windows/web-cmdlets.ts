// Invoke-WebRequest and Invoke-RestMethod over the simulated cluster network.

import type { CmdletSpec } from '../shells/powershell/commands.js';
import { PsTerminatingError } from '../shells/powershell/errors.js';
import { fromJson, PsObject, toText } from '../shells/powershell/values.js';
import { CHOCOLATEY_SITE, chocolateySite } from './chocolatey-install.js';
import type { WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  500: 'Internal Server Error',
};

const PARAMS = {
  Uri: { type: 'string' as const, position: 0, mandatory: true },
  Method: { type: 'string' as const, values: ['Get', 'Post', 'Put', 'Delete', 'Patch', 'Head'] },
  Body: { type: 'string' as const },
  ContentType: { type: 'string' as const },
  Headers: { type: 'object' as const },
  UseBasicParsing: { type: 'switch' as const },
  TimeoutSec: { type: 'int' as const },
};

/** Sends the request; a 4xx/5xx or no connection is a terminating error, as in Windows PowerShell 5.1. */
function send(host: WindowsHost, args: Record<string, unknown>, cmdlet: string) {
  const uri = toText(args.Uri);
  const headers: Record<string, string> = {};
  if (args.Headers instanceof PsObject) for (const [k, v] of args.Headers.entries()) headers[k.toLowerCase()] = toText(v);
  if (args.ContentType !== undefined) headers['content-type'] = toText(args.ContentType);
  const site = URL.canParse(uri) ? new URL(uri) : undefined;
  const outcome =
    site?.hostname === CHOCOLATEY_SITE
      ? { ...chocolateySite(host, site, cmdlet), headers: {} }
      : host.network?.request(uri, {
          method: toText(args.Method ?? 'Get').toUpperCase(),
          headers,
          body: args.Body === undefined ? '' : toText(args.Body),
        });
  if (!outcome || 'error' in outcome) {
    throw new PsTerminatingError(
      'Unable to connect to the remote server',
      `System.Net.WebException,Microsoft.PowerShell.Commands.${cmdlet.replace('-', '')}Command`,
      'InvalidOperation',
      cmdlet,
    );
  }
  if (outcome.status >= 400) {
    throw new PsTerminatingError(
      `The remote server returned an error: (${outcome.status}) ${REASONS[outcome.status] ?? 'Error'}.`,
      `WebCmdletWebResponseException,Microsoft.PowerShell.Commands.${cmdlet.replace('-', '')}Command`,
      'InvalidOperation',
      cmdlet,
    );
  }
  return outcome;
}

const invokeWebRequest: Spec = {
  name: 'Invoke-WebRequest',
  params: PARAMS,
  run(host, args) {
    const r = send(host, args, 'Invoke-WebRequest');
    return [
      PsObject.from(
        { StatusCode: r.status, Content: r.body, Headers: PsObject.from(r.headers, 'System.Collections.Hashtable') },
        'Microsoft.PowerShell.Commands.BasicHtmlWebResponseObject',
      ),
    ];
  },
};

const invokeRestMethod: Spec = {
  name: 'Invoke-RestMethod',
  params: PARAMS,
  run(host, args) {
    const r = send(host, args, 'Invoke-RestMethod');
    try {
      return [fromJson(JSON.parse(r.body))];
    } catch {
      return [r.body];
    }
  },
};

export const WEB_CMDLETS: Spec[] = [invokeWebRequest, invokeRestMethod];
