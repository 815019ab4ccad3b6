// The lab over real SSH: Windows hosts under real pwsh behind sshd, backed by the simulator, real bash on Linux hosts, reboots, faults.

import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stderrText } from '../../src/dataplane/clixml.js';
import type { LinuxHost } from '../../src/sim/linux/linux-host.js';
import { WINDOWS_DOCKER_INSTALL } from '../support/inputs.js';
import { waitUntil } from '../support/wait-until.js';
import { LAB_PASSWORD, Lab } from './lab.js';
import { linksWithPrefix, netnsList, sh } from './netns.js';
import { powershell, ssh, sshWithPassword } from './ssh.js';

const REBOOT_MS = 400;

const bootTime = async (lab: Lab, host: string) =>
  (await powershell(lab, host, "(Get-CimInstance -ClassName Win32_OperatingSystem).LastBootUpTime.ToString('o')")).stdout.trim();
/** Up again: sshd answers and runs a command (255 is ssh's own failure: refused, reset, timed out). */
const backUp = (lab: Lab, host: string) => waitUntil(`${host} back from reboot`, async () => (await ssh(lab, host, 'true')).code !== 255);
const msiexec = (path: string) =>
  `$p = Start-Process -FilePath 'msiexec.exe' -ArgumentList @('/i', '${path}', '/qn', '/norestart', '/l*v', 'C:\\Windows\\Temp\\msi.log') -Wait -PassThru\n$p.ExitCode`;

describe('the lab', () => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await Lab.start({
      hosts: [
        { name: 'lin1', os: 'linux' },
        { name: 'win1', os: 'windows', windows: { features: ['Containers', 'Hyper-V'] } },
        { name: 'lin2', os: 'linux' },
        { name: 'win2', os: 'windows' },
      ],
      rebootMs: REBOOT_MS,
    });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  // Each Windows command starts a real pwsh (a second or more on a busy machine).
  describe('Windows hosts over real SSH', { timeout: 240_000 }, () => {
    it('run what groundcrew sends: powershell.exe -EncodedCommand, JSON back', async () => {
      const r = await powershell(
        lab,
        'win1',
        "Get-Service -Name 'winnat' | Select-Object -Property 'Name','StartType' | ConvertTo-Json -Compress",
      );
      expect(r).toMatchObject({ code: 0, stdout: '{"Name":"winnat","StartType":2}\r\n', stderr: '' });
      expect((await lab.commandLog('win1')).at(-1)).toMatch(/Get-Service -Name 'winnat'/);
    });

    it('reject what Windows rejects: unknown cmdlets, bad parameters, syntax errors, Unix commands', async () => {
      const unknown = await powershell(lab, 'win1', 'Get-Servic');
      expect(unknown.code).toBe(1);
      // pwsh 7's wording ("a name of a cmdlet"); Windows PowerShell 5.1 says "the name of a cmdlet".
      expect(unknown.stderr).toMatch(/'Get-Servic' is not recognized as (a|the) name of a cmdlet/);
      const parameter = await powershell(lab, 'win1', 'Get-Service -Nmae x');
      expect(parameter.stderr).toMatch(/A parameter cannot be found that matches parameter name 'Nmae'/);
      const syntax = await powershell(lab, 'win1', "if ($true { 'x' }");
      expect(syntax.code).toBe(1);
      expect(syntax.stderr).toMatch(/ParserError/);
      // A command line runs in PowerShell (Windows OpenSSH with DefaultShell = PowerShell), which has no uname.
      const unix = await ssh(lab, 'win1', 'uname -a');
      expect(unix.code).toBe(1);
      expect(stderrText(unix.stderr)).toMatch(/The term 'uname' is not recognized/);
    });

    it('test signing: the vRouter MSI fails with 1603 until a reboot, the reboot drops the session and changes the boot time, then it installs', async () => {
      const prep = await powershell(
        lab,
        'win1',
        [
          ...WINDOWS_DOCKER_INSTALL,
          "docker pull 'opencontrailnightly/contrail-windows-vrouter:5.0.1' | Out-Null",
          "docker run --rm -v 'C:\\Artifacts:C:\\Artifacts' 'opencontrailnightly/contrail-windows-vrouter:5.0.1' | Out-Null",
          "Import-Certificate -FilePath 'C:\\Artifacts\\vrouter\\vRouter.cer' -CertStoreLocation 'Cert:\\LocalMachine\\Root' | Out-Null",
          "Import-Certificate -FilePath 'C:\\Artifacts\\vrouter\\vRouter.cer' -CertStoreLocation 'Cert:\\LocalMachine\\TrustedPublisher' | Out-Null",
          "bcdedit /set '{current}' testsigning on",
        ].join('\n'),
      );
      expect(prep).toMatchObject({ code: 0, stdout: 'The operation completed successfully.\r\n' });
      const failed = await powershell(lab, 'win1', msiexec('C:\\Artifacts\\vrouter\\vRouter.msi'));
      expect(failed.stdout.trim()).toBe('1603');
      expect((await powershell(lab, 'win1', "Get-Content -Path 'C:\\Windows\\Temp\\msi.log' -Tail 3")).stdout).toMatch(
        /test signing is not active/,
      );

      const before = await bootTime(lab, 'win1');
      // An idle SSH connection held open across the reboot: it must be dropped.
      const held = spawn('ssh', ['-N', ...lab.sshArgs('win1')], { stdio: 'ignore' });
      const heldExit = new Promise<number | null>((resolve) => held.once('exit', (code) => resolve(code)));
      await new Promise((r) => setTimeout(r, 300));
      const restart = await powershell(lab, 'win1', 'Restart-Computer -Force');
      expect(restart.code).toBe(0);
      expect(await heldExit).toBe(255);
      await backUp(lab, 'win1');
      expect(await bootTime(lab, 'win1')).not.toBe(before);
      expect(lab.host('win1').reboots).toBe(1);
      const installed = await powershell(lab, 'win1', msiexec('C:\\Artifacts\\vrouter\\vRouter.msi'));
      expect(installed.stdout.trim()).toBe('0');
      // vrouter_msi.wxs: Name="vRouter" Version="1.0.0", whichever Contrail build it came from.
      expect((await powershell(lab, 'win1', "(Get-Package -ProviderName 'msi' -Name 'vRouter').Version")).stdout.trim()).toBe('1.0.0');
    });

    it('the CNM plugin (an NSSM service, as c-a-d makes it) comes up only with Docker running, and its pipe goes when Docker stops', async () => {
      const setup = await powershell(
        lab,
        'win1',
        [
          "docker run --rm -v 'C:\\Artifacts:C:\\Artifacts' 'opencontrailnightly/contrail-windows-cnm-plugin:5.1.0' | Out-Null",
          'choco install nssm -y --no-progress | Out-Null',
          "& 'C:\\ProgramData\\chocolatey\\bin\\nssm.exe' install 'contrail-cnm-plugin' 'C:\\Program Files\\Juniper Networks\\cnm-plugin\\contrail-cnm-plugin.exe' | Out-Null",
          "New-Item -ItemType Directory -Path 'C:\\ProgramData\\Contrail\\etc\\contrail' -Force | Out-Null",
          "Set-Content -Path 'C:\\ProgramData\\Contrail\\etc\\contrail\\contrail-cnm-plugin.conf' -Value @('[DRIVER]', 'Adapter=Ethernet1', '[AUTH]', 'AuthMethod=noauth')",
          'Stop-Service -Name docker -Force',
          msiexec('C:\\Artifacts\\cnm-plugin\\contrail-cnm-plugin.msi'),
        ].join('\n'),
      );
      expect(setup).toMatchObject({ code: 0, stdout: '0\r\n' });
      const blocked = await powershell(lab, 'win1', "Start-Service -Name 'contrail-cnm-plugin'");
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toMatch(/Docker is not running/);
      expect(
        (
          await powershell(
            lab,
            'win1',
            "Start-Service -Name docker; Start-Service -Name 'contrail-cnm-plugin'; Test-Path -Path '\\\\.\\pipe\\Contrail'",
          )
        ).stdout,
      ).toBe('True\r\n');
      expect((await powershell(lab, 'win1', "Stop-Service -Name docker -Force; Test-Path -Path '\\\\.\\pipe\\Contrail'")).stdout).toBe(
        'False\r\n',
      );
    });

    it('state survives a reboot, kept in the host directory', async () => {
      expect(lab.windows('win1').state.products).not.toEqual({});
      expect(lab.windows('win1').state.activeTestSigning).toBe(true);
    });
  });

  describe('Linux hosts over real SSH', () => {
    it('run real bash with a clean home, their own hostname and their own /etc/contrail', async () => {
      const r = await ssh(
        lab,
        'lin1',
        'echo "$0 $BASH_VERSION"; hostname; echo $HOME; ls -A ~; mkdir -p /etc/contrail/vrouter && echo lin1 > /etc/contrail/vrouter/who',
      );
      expect(r.code).toBe(0);
      const [shell, hostname, home, files] = r.stdout.split('\n');
      expect(shell).toMatch(/^\/bin\/bash 5\./);
      expect(hostname).toBe('lin1');
      expect(home).toBe('/root');
      expect(files).toBe('.ssh');
      expect((await ssh(lab, 'lin2', 'cat /etc/contrail/vrouter/who 2>&1; echo $?')).stdout).toMatch(/No such file or directory\n1\n$/);
      expect((await ssh(lab, 'lin1', 'cat /etc/contrail/vrouter/who')).stdout).toBe('lin1\n');
    });

    it('fail as bash fails: an unknown command exits 127', async () => {
      const r = await ssh(lab, 'lin1', 'no-such-tool --version');
      expect(r.code).toBe(127);
      expect(r.stderr).toMatch(/no-such-tool: command not found/);
    });

    it('have shims for docker and compose whose state lives with the host; the agent brings up vhost0 and pkt0', async () => {
      // kernel-init installs vrouter.ko under the host's /lib/modules; the agent then loads it and makes vhost0.
      const compose = [
        "version: '2'",
        'services:',
        '  vrouter-kernel-init:',
        '    image: opencontrailnightly/contrail-vrouter-kernel-init:5.0.1',
        '    privileged: true',
        '    volumes: [/lib/modules:/lib/modules]',
        '  vrouter-agent:',
        '    image: opencontrailnightly/contrail-vrouter-agent:5.0.1',
        '    restart: always',
        '    privileged: true',
        '    network_mode: host',
        '    volumes: [/lib/modules:/lib/modules]',
        '    depends_on: [vrouter-kernel-init]',
      ].join('\n');
      const r = await ssh(
        lab,
        'lin1',
        `mkdir -p /etc/contrail/vrouter && cat > /etc/contrail/vrouter/docker-compose.yaml <<'EOF'\n${compose}\nEOF\ndocker compose -f /etc/contrail/vrouter/docker-compose.yaml up -d && docker ps --format '{{json .}}' && ip -br link show vhost0`,
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout.split('\n')[0] ?? '')).toMatchObject({ Names: 'vrouter-vrouter-agent-1', State: 'running' });
      const init = await ssh(
        lab,
        'lin1',
        "docker ps -a --filter label=com.docker.compose.service=vrouter-kernel-init --format '{{json .}}'",
      );
      expect(JSON.parse(init.stdout)).toMatchObject({ Status: expect.stringMatching(/^Exited \(0\)/) });
      expect(r.stdout).toMatch(/^vhost0 +UNKNOWN/m);
      expect((await ssh(lab, 'lin2', 'docker ps -a --format "{{json .}}" | wc -l')).stdout).toBe('0\n');
      const missing = await ssh(lab, 'lin1', 'docker pull opencontrailnightly/contrail-vrouter-agent:9.9.9');
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/manifest unknown/);
    });

    it('reboot: the session drops, the boot id changes, containers with restart: always come back with their interfaces', async () => {
      const before = (await ssh(lab, 'lin1', 'cat /proc/sys/kernel/random/boot_id')).stdout;
      const sleeper = ssh(lab, 'lin1', 'sleep 20; echo survived');
      await new Promise((r) => setTimeout(r, 300));
      const reboot = await ssh(lab, 'lin1', 'reboot');
      expect(reboot.code === 0 || reboot.code === 255).toBe(true);
      const dropped = await sleeper;
      expect(dropped.code).toBe(255);
      expect(dropped.stdout).toBe('');
      await backUp(lab, 'lin1');
      const after = (await ssh(lab, 'lin1', 'cat /proc/sys/kernel/random/boot_id; ip -br link show pkt0')).stdout.split('\n');
      expect(after[0]).not.toBe(before.trim());
      expect(after[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(after[1]).toMatch(/^pkt0 /);
      expect((lab.linux('lin1') as LinuxHost).state.bootCount).toBe(2);
    });
  });

  describe('faults on demand', () => {
    it('slows every command by N ms', async () => {
      await lab.fault('lin2', { slowMs: 300 });
      const slow = await ssh(lab, 'lin2', 'true');
      await lab.fault('lin2', { slowMs: 0 });
      expect(slow.code).toBe(0);
      expect(slow.ms).toBeGreaterThanOrEqual(300);
    });

    it('drops a connection in the middle of a command', async () => {
      await lab.fault('lin2', { dropAfterMs: 200 });
      const r = await ssh(lab, 'lin2', 'sleep 10; echo finished');
      expect(r.code).toBe(255);
      expect(r.stdout).toBe('');
      expect(r.ms).toBeLessThan(9000);
      expect((await ssh(lab, 'lin2', 'echo next')).stdout).toBe('next\n');
    });

    it('fails a named MSI with 1603', async () => {
      await lab.fault('win1', { failMsi: ['utils.msi'] });
      const r = await powershell(lab, 'win1', msiexec('C:\\Artifacts\\vrouter\\utils.msi'));
      expect(r.stdout.trim()).toBe('1603');
      await lab.fault('win1', { failMsi: [] });
    });

    it('accepts the lab password and refuses every login when told to', async () => {
      const ok = await sshWithPassword(lab, 'win2', LAB_PASSWORD, 'powershell.exe -NoProfile -NonInteractive -Command hostname');
      expect(ok).toMatchObject({ code: 0, stdout: 'win2\r\n' });
      const wrong = await sshWithPassword(lab, 'win2', 'not-the-password', 'hostname');
      expect(wrong.code).toBe(255);
      expect(wrong.stderr).toMatch(/Permission denied/);
      await lab.fault('lin2', { refuseAuth: true });
      const refused = await ssh(lab, 'lin2', 'true');
      expect(refused.code).toBe(255);
      expect(refused.stderr).toMatch(/Permission denied/);
      await lab.fault('lin2', { refuseAuth: false });
      expect((await ssh(lab, 'lin2', 'echo back')).stdout).toBe('back\n');
    });

    it('a host that never returns from reboot stays down', async () => {
      await lab.fault('win2', { neverReturnFromReboot: true });
      expect((await powershell(lab, 'win2', 'Restart-Computer -Force')).code).toBe(0);
      await new Promise((r) => setTimeout(r, REBOOT_MS * 3));
      const r = await ssh(lab, 'win2', 'hostname');
      expect(r.code).toBe(255);
      expect(r.stderr).toMatch(/Connection refused|No route to host/);
    });
  });

  it('stopping removes every namespace, link, process and file it made', async () => {
    await lab.stop();
    expect((await netnsList()).filter((n) => n.startsWith(`${lab.prefix}-`))).toEqual([]);
    expect(await linksWithPrefix(`${lab.prefix}-`)).toEqual([]);
    expect((await sh('ps', ['-eo', 'args'])).split('\n').filter((l) => l.includes(lab.dir))).toEqual([]);
  });
});
