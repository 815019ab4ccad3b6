// The tools Contrail's Windows deployment installs with and runs services through: choco (chocolatey.ts), nssm (services as
// contrail-windows-ci's Service.ps1 creates them: install, set, remove; exit 5 when the service exists)
// and pip (nodemgr from C:\Artifacts\nodemgr\*.tar.gz, Installation.ps1 Install-Nodemgr).

import type { NativeResult, NativeSpec } from '../shells/powershell/commands.js';
import { choco } from './chocolatey.js';
import type { WindowsHost } from './windows-host.js';
import { NODEMGR_EXE, NSSM_EXE, PIP_EXE } from './windows-paths.js';

const fail = (stderr: string, exitCode = 1): NativeResult => ({ stdout: '', stderr: `${stderr}\r\n`, exitCode });

const NSSM_PARAMETERS: Record<string, string | undefined> = {
  application: 'Application',
  appparameters: 'AppParameters',
  appdirectory: 'AppDirectory',
  appstdout: 'AppStdout',
  appstderr: 'AppStderr',
};
const nssmKey = (name: string) => `hklm:\\system\\currentcontrolset\\services\\${name.toLowerCase()}\\parameters`;

/** nssm 2.24: install NAME APP [ARGS], set NAME PARAM VALUE, get NAME PARAM, remove NAME confirm. */
const nssm: NativeSpec<WindowsHost> = {
  names: ['nssm', 'nssm.exe'],
  run(host, argv, ctx) {
    if (!host.fs.isFile(NSSM_EXE) || (ctx.command?.includes('\\') && !host.fs.isFile(ctx.command)))
      return fail("nssm : The term 'nssm' is not recognized as the name of a cmdlet, function, script file, or operable program.");
    const [verb, name = '', ...rest] = argv;
    const svc = host.service(name);
    switch (verb?.toLowerCase()) {
      case 'install': {
        if (svc) return fail(`Error creating service!\r\nCreateService(): The specified service already exists.`, 5);
        if (!host.state.elevated) return fail('Administrator access is needed to install a service.', 2);
        const [application = '', ...params] = rest;
        host.state.services[name.toLowerCase()] = {
          name,
          displayName: name,
          status: 'Stopped',
          startType: 'Automatic',
          binaryPath: NSSM_EXE,
          dependsOn: [],
        };
        host.state.registry[nssmKey(name)] = { Application: application, AppParameters: params.join(' '), AppDirectory: '' };
        host.record(`nssm-install ${name}`);
        return { stdout: `Service "${name}" installed successfully!\r\n`, exitCode: 0 };
      }
      case 'set': {
        const values = host.state.registry[nssmKey(name)];
        if (!svc || !values)
          return fail(`Can't open service!\r\nOpenService(): The specified service does not exist as an installed service.`, 3);
        const [param = '', ...value] = rest;
        if (param.toLowerCase() === 'start') {
          const start = { service_auto_start: 'Automatic', service_demand_start: 'Manual', service_disabled: 'Disabled' }[
            (value[0] ?? '').toLowerCase()
          ] as 'Automatic' | 'Manual' | 'Disabled' | undefined;
          if (!start) return fail(`Invalid value for parameter Start!`, 4);
          svc.startType = start;
        } else if (!NSSM_PARAMETERS[param.toLowerCase()]) return fail(`Invalid parameter "${param}"`, 4);
        else values[NSSM_PARAMETERS[param.toLowerCase()] as string] = value.join(' ');
        host.record(`nssm-set ${name} ${param}`);
        return { stdout: `Set parameter "${param}" for service "${name}".\r\n`, exitCode: 0 };
      }
      case 'remove': {
        if (!svc) return fail(`Can't open service!`, 3);
        host.deleteService(svc.name);
        host.record(`nssm-remove ${name}`);
        return { stdout: `Service "${name}" removed successfully!\r\n`, exitCode: 0 };
      }
    }
    return fail(`groundcrew sim: nssm ${argv.join(' ')} is outside the simulated subset`);
  },
};

/** The arguments NSSM gives an NSSM service's application (AppParameters), or undefined for any other service. */
export function nssmParameters(host: WindowsHost, name: string): string | undefined {
  const value = host.state.registry[nssmKey(name)]?.AppParameters;
  return value === undefined ? undefined : String(value);
}

/** The application an NSSM service runs (its Parameters key), or undefined for any other service. */
export function nssmApplication(host: WindowsHost, name: string): string | undefined {
  const value = host.state.registry[nssmKey(name)]?.Application;
  return value === undefined ? undefined : String(value);
}

/** pip install of the nodemgr archives the vRouter image ships: contrail-nodemgr.exe in Python's Scripts. */
const pip: NativeSpec<WindowsHost> = {
  names: ['pip', 'pip.exe'],
  run(host, argv, ctx) {
    if (!host.fs.isFile(PIP_EXE) || (ctx.command?.includes('\\') && !host.fs.isFile(ctx.command)))
      return fail("pip : The term 'pip' is not recognized as the name of a cmdlet, function, script file, or operable program.");
    const [verb, target = ''] = argv;
    if (verb !== 'install' || !target) return fail(`groundcrew sim: pip ${argv.join(' ')} is outside the simulated subset`);
    const archive = host.fs.read(target);
    if (archive === undefined) return fail(`ERROR: Invalid requirement: '${target}'\r\nFile doesn't exist`, 1);
    if (!/nodemgr/i.test(target)) return fail(`groundcrew sim: pip install ${target} is outside the simulated subset`);
    host.fs.put(NODEMGR_EXE, archive);
    host.record(`pip-install ${target.replace(/^.*\\/, '')}`);
    return { stdout: `Successfully installed contrail-nodemgr\r\n`, exitCode: 0 };
  },
};

export const INSTALLER_NATIVES: NativeSpec<WindowsHost>[] = [choco, nssm, pip];
