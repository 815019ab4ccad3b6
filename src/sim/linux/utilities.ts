// The commands a simulated Linux host has, over its in-memory file system and model. What is not here is
// "command not found" (exit 127), as on a host without that tool.

import type { Utility } from '../shells/bash/bash-shell.js';
import { compose } from './compose.js';
import { addCurl } from './curl.js';
import { docker } from './docker.js';
import { addFileUtilities } from './file-utilities.js';
import { hostFiles } from './host-files.js';
import { ipCommand } from './ip-routes.js';
import type { LinuxHost } from './linux-host.js';
import { addSystemUtilities } from './system-utilities.js';
import { systemctl } from './systemctl.js';
import { addTestUtility } from './test-utility.js';
import { addTextUtilities } from './text-utilities.js';

export function linuxUtilities(host: LinuxHost): Map<string, Utility> {
  const files = hostFiles(host);
  const u = new Map<string, Utility>();
  addTextUtilities(u, files);
  addTestUtility(u, host, files);
  addFileUtilities(u, host, files);
  addSystemUtilities(u, host);
  u.set('ip', (args) => ipCommand(host, args));
  u.set('docker', (args, _stdin, shell) => docker(host, args, (path) => files.read(path), shell.cwd));
  // The standalone Compose v1 exists only on hosts that have it (a CentOS 7 era host); elsewhere: not found.
  if (host.state.composeV1Version !== undefined)
    u.set('docker-compose', (args, _stdin, shell) => compose(host, 'v1', args, (path) => files.read(path), shell.cwd));
  u.set('systemctl', (args) => systemctl(host, args));
  addCurl(u, host);
  return u;
}
