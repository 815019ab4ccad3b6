// Config files and services the way Contrail's Windows deployment makes them: files written whole
// (content on stdin, compared by hash, so a secret is never on a command line or in a run report), and
// services created with NSSM (contrail-windows-ci Service.ps1 Install-ServiceWithNSSM; c-a-d win_nssm).

import { createHash } from 'node:crypto';
import { psQuote } from '../../dataplane/quote.js';
import { errors } from '../../errors.js';
import { setByCommand } from '../phase.js';
import { compare, type FactQuery, type Facts, type Resource } from '../resource.js';
import { serviceStatus } from './queries.js';
import { stdinOf, writeFromStdin } from './write-from-stdin.js';

/** Chocolatey's nssm shim (c-a-d installs nssm with win_chocolatey). */
export const NSSM = 'C:\\ProgramData\\chocolatey\\bin\\nssm.exe';
/** NSSM's "service already exists" exit code (contrail-windows-ci Service.ps1: $NSSMServiceAlreadyCreatedError = 5). */
const NSSM_EXISTS = 5;

/**
 * A config file with these lines (CRLF, as c-a-d's win_template newline_sequence), or undefined while the
 * host cannot say yet what it must hold. A change restarts `service` if it runs.
 */
export function configFile(
  name: string,
  path: string,
  lines: (facts: Facts) => string[] | undefined,
  service: string,
  hostFacts: FactQuery[] = [],
): Resource {
  const id = `config.${name}`;
  const wanted = (facts: Facts) => {
    const l = lines(facts);
    return l ? `${l.join('\r\n')}\r\n` : undefined;
  };
  const hash = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();
  return {
    name: `config/${name}`,
    facts: [
      {
        id,
        ps: `if (Test-Path -LiteralPath ${psQuote(path)}) { (Get-FileHash -LiteralPath ${psQuote(path)} -Algorithm SHA256).Hash } else { $null }`,
      },
      { id: `${id}.service`, ps: serviceStatus(service) },
      ...hostFacts,
    ],
    test(facts) {
      const text = wanted(facts);
      return compare({ SHA256: [facts.get(id), text ? hash(text) : 'unknown until the host has what the file describes'] });
    },
    async set({ exec, facts, signal }) {
      const text = wanted(facts);
      if (!text) throw errors.GC_STILL_DIFFERENT(`config/${name}: the host does not have yet what ${path} describes`);
      const restart = facts.get(`${id}.service`) === 'Running' ? `\nRestart-Service -Name ${psQuote(service)} -Force` : '';
      return setByCommand(exec, `${writeFromStdin(path)}${restart}`, `write ${name} config`, { signal, stdin: stdinOf(text) });
    },
  };
}

export interface NssmService {
  name: string;
  application: string;
  parameters?: string;
  /** c-a-d: the CNM plugin and the agent manual (the roles start them in order), nodemgr automatic. */
  start: 'Automatic' | 'Manual';
  log: string;
}

/** A service run by NSSM: its Application and AppParameters as NSSM keeps them (the service's Parameters key). */
export function nssmService(s: NssmService): Resource {
  const id = `nssm.${s.name}`;
  const key = `HKLM:\\SYSTEM\\CurrentControlSet\\Services\\${s.name}\\Parameters`;
  const wanted = { application: s.application, parameters: s.parameters ?? '' };
  return {
    name: `service/${s.name}/nssm`,
    facts: [
      {
        id,
        ps: `if (Test-Path -Path ${psQuote(key)}) { $k = Get-ItemProperty -Path ${psQuote(key)}; [pscustomobject]@{ application = $k.Application; parameters = $k.AppParameters } } else { $null }`,
      },
    ],
    test: (facts) => compare({ Service: [facts.get(id) ?? null, wanted] }),
    async set({ exec, signal }) {
      const nssm = (args: string) => `& ${psQuote(NSSM)} ${args}\nif ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }`;
      const script = [
        `& ${psQuote(NSSM)} install ${psQuote(s.name)} ${psQuote(s.application)}`,
        `if ($LASTEXITCODE -ne 0 -and $LASTEXITCODE -ne ${NSSM_EXISTS}) { exit $LASTEXITCODE }`,
        nssm(`set ${psQuote(s.name)} Application ${psQuote(s.application)}`),
        // Windows PowerShell drops an empty argument to a native program: no parameters, no `set` for them.
        ...(s.parameters ? [nssm(`set ${psQuote(s.name)} AppParameters ${psQuote(s.parameters)}`)] : []),
        nssm(`set ${psQuote(s.name)} AppStdout ${psQuote(s.log)}`),
        nssm(`set ${psQuote(s.name)} AppStderr ${psQuote(s.log)}`),
        nssm(`set ${psQuote(s.name)} Start ${s.start === 'Automatic' ? 'SERVICE_AUTO_START' : 'SERVICE_DEMAND_START'}`),
      ].join('\n');
      return setByCommand(exec, script, `service ${s.name} (NSSM)`, { signal });
    },
  };
}
