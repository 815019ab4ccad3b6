// Issue 28 item 4 (and item 7's runtimes): Chocolatey 0.10.11, 1.x and 2.x, each answering its own command lines
// (sim/windows/chocolatey.ts). The packages are read in the form the installed release accepts (2.0 refuses
// `list --local-only`: "Invalid argument --local-only. This argument has been removed from the list command
// and cannot be used."), useEnhancedExitCodes is disabled as c-a-d does, and c-a-d's packages are installed:
// python2 2.7.13, nssm, vcredist2013, vcredist140 and vcpython27.

import { beforeAll, describe, expect, it } from 'vitest';
import { SimExecutor, SimShells } from '../../../../src/dataplane/sim-executor.js';
import { windowsPrereqs } from '../../../../src/roles/windows/prereqs.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { WindowsShell } from '../../../../src/sim/windows/windows-shell.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { windowsInput } from '../../../support/inputs.js';
import { Recorder } from '../../../support/recorder.js';

let shells: SimShells;
let shell: WindowsShell;
beforeAll(async () => {
  shells = await SimShells.create();
  shell = await WindowsShell.create();
});

const CHOCO = "& 'C:\\ProgramData\\chocolatey\\bin\\choco.exe'";
const run = (host: WindowsHost, script: string) => shell.runScript(host, script);

const RELEASES = [
  { version: '0.10.11', build: 14393 },
  { version: '1.4.0', build: 17763, enhancedExitCodes: true },
  { version: '2.2.2', build: 14393 },
  { version: '2.2.2', build: 17763, enhancedExitCodes: true },
] as const;

describe('Chocolatey on the node', () => {
  for (const r of RELEASES) {
    const enhanced = 'enhancedExitCodes' in r ? r.enhancedExitCodes : false;
    it(`${r.version} (enhanced exit codes ${enhanced ? 'on' : 'off'}, build ${r.build}): c-a-d's packages installed, exit codes as c-a-d wants them, then nothing to do`, async () => {
      const host = WindowsHost.fresh({
        hostname: 'win1',
        build: r.build,
        features: ['Containers', 'NET-Framework-Features', 'Hyper-V'],
        chocolatey: { version: r.version, enhancedExitCodes: enhanced },
      });
      const exec = new Recorder(new SimExecutor({ host, shells }));
      const first = await applyPhase(exec, windowsPrereqs(windowsInput()));
      expect(first.failure).toBeUndefined();
      expect(host.state.journal.filter((j) => j.startsWith('choco-'))).toEqual([
        ...(enhanced ? ['choco-feature-disable useEnhancedExitCodes'] : []),
        'choco-install python2 2.7.13',
        'choco-install nssm 2.24.101',
        'choco-install vcredist2013 12.0.40664',
        'choco-install vcredist140 14.16.27027',
        'choco-install vcpython27 9.0.30729.6161',
      ]);
      const listed = exec.scripts.join('\n');
      expect(listed).toContain(r.version.startsWith('2.') ? 'list --limit-output' : 'list --local-only --limit-output');
      const journal = host.state.journal.length;
      const again = await applyPhase(exec, windowsPrereqs(windowsInput()));
      expect(again.resources.find((x) => x.resource === 'chocolatey/packages')?.status).toBe('ok');
      expect(host.state.journal.slice(journal)).toEqual([]);
    });
  }
});

describe('Chocolatey missing', () => {
  for (const build of [14393, 17763] as const) {
    it(`is installed as c-a-d does (install.ps1 over TLS 1.2), enhanced exit codes disabled, then the packages (build ${build})`, async () => {
      const host = WindowsHost.fresh({
        hostname: 'win1',
        build,
        chocolatey: false,
        features: ['Containers', 'NET-Framework-Features', 'Hyper-V'],
      });
      const exec = new SimExecutor({ host, shells });
      const outcome = await applyPhase(exec, windowsPrereqs(windowsInput()));
      expect(outcome.failure).toBeUndefined();
      expect(host.state.journal.filter((j) => j.startsWith('choco')).slice(0, 2)).toEqual([
        'chocolatey-install 2.2.2',
        'choco-install python2 2.7.13',
      ]);
      expect(run(host, `${CHOCO} feature list --limit-output`).stdout).toContain('useEnhancedExitCodes|Disabled|');
      expect(run(host, `${CHOCO} list --limit-output`).stdout).toContain('vcpython27|9.0.30729.6161');
    });
  }

  it('a node that cannot reach community.chocolatey.org fails the phase with what PowerShell said', async () => {
    const host = WindowsHost.fresh({
      hostname: 'win1',
      chocolatey: false,
      catalog: { chocolatey: undefined },
      features: ['Containers', 'NET-Framework-Features', 'Hyper-V'],
    });
    await expect(applyPhase(new SimExecutor({ host, shells }), windowsPrereqs(windowsInput()))).rejects.toThrow(
      /The remote name could not be resolved: 'community\.chocolatey\.org'/,
    );
  });

  it('the site answers only TLS 1.2, which Windows PowerShell 5.1 does not offer unless told', () => {
    const host = WindowsHost.fresh({ hostname: 'win1', chocolatey: false });
    const get = "(Invoke-WebRequest -Uri 'https://community.chocolatey.org/install.ps1' -UseBasicParsing).StatusCode";
    expect(run(host, get)).toMatchObject({ exitCode: 1, stderr: expect.stringContaining('Could not create SSL/TLS secure channel') });
    const tls12 = '[Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor 3072';
    expect(run(host, `${tls12}\n${get}`)).toMatchObject({ exitCode: 0, stdout: '200\r\n' });
  });
});

describe('the simulated Chocolatey answers as each release does', () => {
  it('2.x refuses --local-only with its own words; 0.10/1.x list local packages with it', async () => {
    const v2 = WindowsHost.fresh({ hostname: 'win1', chocolatey: { version: '2.2.2' } });
    expect(run(v2, `${CHOCO} list --local-only`)).toMatchObject({
      exitCode: 1,
      stdout: expect.stringContaining(
        'Invalid argument --local-only. This argument has been removed from the list command and cannot be used.',
      ),
    });
    for (const version of ['0.10.11', '1.4.0']) {
      const old = WindowsHost.fresh({ hostname: 'win1', chocolatey: { version } });
      expect(run(old, `${CHOCO} list --local-only --limit-output`)).toMatchObject({ exitCode: 0 });
    }
  });

  it('enhanced exit codes: an empty list exits 2; 0.10.11 has no such feature to disable', async () => {
    const on = WindowsHost.fresh({ hostname: 'win1', chocolatey: { version: '1.4.0', enhancedExitCodes: true } });
    expect(run(on, `${CHOCO} list --local-only --limit-output\nexit $LASTEXITCODE`).exitCode).toBe(2);
    const old = WindowsHost.fresh({ hostname: 'win1' });
    expect(run(old, `${CHOCO} feature disable --name useEnhancedExitCodes`)).toMatchObject({
      exitCode: 1,
      stderr: expect.stringContaining("Feature 'useEnhancedExitCodes' not found"),
    });
  });
});
