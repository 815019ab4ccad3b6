import { execFile } from 'node:child_process';
import { Lab } from './test/lab/lab.ts';
import { encodePowerShell } from './src/dataplane/sim/windows/windows-shell.ts';
const t0 = Date.now();
const lab = await Lab.start({ hosts: [{ name: 'lin1', os: 'linux' }, { name: 'win1', os: 'windows' }], rebootMs: 500 });
console.log('started in', Date.now() - t0, 'ms', lab.hosts.map(h => h.address));
const ssh = (name: string, cmd: string) => new Promise<string>((res) => execFile('ssh', [...lab.sshArgs(name), cmd], { encoding: 'utf8' }, (e: any, out, err) => res(e ? `EXIT ${e.code}: ${out} ${err}` : out)));
try {
  console.log(await ssh('lin1', "echo hi; hostname; cat /proc/sys/kernel/random/boot_id; docker version --format '{{.Server.Version}}'; ls /etc/contrail; echo $HOME; which docker"));
  console.log(await ssh('win1', encodePowerShell("Get-Service -Name winnat | ConvertTo-Json -Compress; hostname")));
  console.log(await ssh('win1', 'dir C:\\'));
  console.log(await lab.commandLog('lin1'), await lab.commandLog('win1'));
} finally { await lab.stop(); }
