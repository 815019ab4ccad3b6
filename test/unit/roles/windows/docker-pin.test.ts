// Issue 37 item 5: Docker pinned as the example inventory pins it ("18.09") converges. DockerMsftProvider takes
// `-RequiredVersion 18.09` as a key of its index (a channel), installs that channel's build, and Get-Package then
// reports the build (OneGet/MicrosoftDockerProvider DockerMsftProvider.psm1: Find-FromUrl matches RequiredVersion
// against the index's `versions` keys; Get-InstalledPackage reads metadata.json, which SaveInfo writes from
// `dockerd --version`). Prereqs compares as the provider matches: before, it compared 18.09.11 with 18.09 exactly
// and reinstalled Docker on every pass. Real pwsh runs each role script against the simulated host.

import { describe, expect, it } from 'vitest';
import { dockerPinHolds, windowsPrereqs } from '../../../../src/roles/windows/prereqs.js';
import { WindowsHost } from '../../../../src/sim/windows/windows-host.js';
import { applyPhase } from '../../../support/apply-phase.js';
import { windowsInput } from '../../../support/inputs.js';
import { RealPwshExecutor } from '../../../support/real-pwsh-executor.js';
import { runInRealPwsh } from '../../../support/real-pwsh-host.js';

describe('a Docker pin, as DockerMsftProvider matches it', () => {
  it('a two-part pin holds for any build of its channel; a three-part pin for that build (and its EE suffix) only', () => {
    expect(dockerPinHolds('18.09', '18.09.11')).toBe(true);
    expect(dockerPinHolds('18.09', '18.09')).toBe(true);
    expect(dockerPinHolds('18.09', '18.091.0')).toBe(false);
    expect(dockerPinHolds('18.09', '19.03.5')).toBe(false);
    expect(dockerPinHolds('18.09.11', '18.09.11')).toBe(true);
    expect(dockerPinHolds('18.09.1', '18.09.11')).toBe(false);
    expect(dockerPinHolds('17.06.2', '17.06.2-ee-25')).toBe(true);
  });

  it('the simulated provider installs a channel key as its build and Get-Package reports the build; an unknown key is no match', async () => {
    const host = WindowsHost.fresh({ hostname: 'win1', features: ['Containers'] });
    const r = await runInRealPwsh(
      host,
      [
        "$ErrorActionPreference = 'Stop'",
        "Install-PackageProvider -Name 'NuGet' -MinimumVersion '2.8.5.201' -Force | Out-Null",
        "Install-Module -Name 'DockerMsftProvider' -Repository 'PSGallery' -Force",
        "Install-Package -Name 'docker' -ProviderName 'DockerMsftProvider' -RequiredVersion '18.09' -Force | Out-Null",
        "(Get-Package -Name 'docker' -ProviderName 'DockerMsftProvider').Version",
        "try { Install-Package -Name 'docker' -ProviderName 'DockerMsftProvider' -RequiredVersion '18.9' -Force } catch { $_.FullyQualifiedErrorId }",
      ].join('\n'),
    );
    expect(r.stderr).toBe('');
    const [version, refusal] = r.stdout.trim().split(/\r?\n/);
    expect(version).toBe('18.09.11');
    expect(refusal).toMatch(/^NoMatchFoundForCriteria,Microsoft\.PowerShell\.PackageManagement\.Cmdlets\.InstallPackage/);
  }, 180_000);

  for (const build of [14393, 17763] as const) {
    it(`build ${build}: prereqs with docker "18.09" installs 18.09.11 once, then a second pass changes nothing`, async () => {
      const host = WindowsHost.fresh({ hostname: 'win1', build, features: ['Containers', 'NET-Framework-Features', 'Hyper-V'] });
      const exec = new RealPwshExecutor(host);
      const first = await applyPhase(exec, windowsPrereqs(windowsInput({ dockerVersion: '18.09' })));
      expect(first.failure).toBeUndefined();
      expect(host.state.journal.filter((j) => j.startsWith('install-package docker'))).toEqual(['install-package docker 18.09.11']);
      const journal = [...host.state.journal];
      const again = await applyPhase(exec, windowsPrereqs(windowsInput({ dockerVersion: '18.09' })));
      expect(again.failure).toBeUndefined();
      expect(again.resources.find((x) => x.resource === 'docker/package')?.status).toBe('ok');
      expect(host.state.journal).toEqual(journal);
      expect(exec.reboots).toEqual([]);
    }, 600_000);
  }
});
