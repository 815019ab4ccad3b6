// System tools of a simulated Linux host: hostname, uname, id, date, sleep, sysctl, reboot.

import { ok } from '../command-result.js';
import type { Utility } from '../shells/bash/bash-shell.js';
import { setSysctl } from './host-files.js';
import type { LinuxHost } from './linux-host.js';
import { flags } from './short-flags.js';

export function addSystemUtilities(u: Map<string, Utility>, host: LinuxHost): void {
  u.set('hostname', () => ok(`${host.state.hostname}\n`));
  u.set('uname', (args) => ok(`${args.includes('-r') ? '5.10.0-28-amd64' : args.includes('-n') ? host.state.hostname : 'Linux'}\n`));
  u.set('id', (args) => ok(args.includes('-u') ? '0\n' : 'uid=0(root) gid=0(root) groups=0(root)\n'));
  u.set('date', (args) => ok(args[0] === '+%s' ? `${Math.floor(Date.now() / 1000)}\n` : `${new Date().toUTCString()}\n`));
  u.set('sleep', () => ok());

  u.set('sysctl', (args) => {
    const { flags: f, rest } = flags(args, 'nwqe');
    if (rest[0] === '--system') {
      for (const [k, v] of Object.entries(host.persistentSysctls())) if (k in host.state.sysctls) setSysctl(host, k, v);
      return ok();
    }
    let out = '';
    for (const item of rest) {
      const at = item.indexOf('=');
      const key = at >= 0 ? item.slice(0, at) : item;
      if (!(key in host.state.sysctls)) {
        if (f.has('e')) continue;
        return {
          stdout: out,
          stderr: `sysctl: cannot stat /proc/sys/${key.replace(/\./g, '/')}: No such file or directory\n`,
          exitCode: 255,
        };
      }
      if (at >= 0) {
        setSysctl(host, key, item.slice(at + 1));
        if (!f.has('q')) out += `${key} = ${item.slice(at + 1)}\n`;
      } else out += f.has('n') ? `${host.state.sysctls[key]}\n` : `${key} = ${host.state.sysctls[key]}\n`;
    }
    return ok(out);
  });

  u.set('reboot', () => {
    host.rebootRequested = true;
    return ok();
  });
}
