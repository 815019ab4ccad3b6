// The vRouter utilities MSI's full program set (Juniper/contrail-vrouter utils/windows/utils_msi.wxs, commit
// 0c433aae: vif, rt, nh, mpls, flow, vrfstats, dropstats, vxlan, vrouter, vrmemstats, mirror, vtest, with
// libxml2.dll and the contrail-autostart/contrail-status scripts). vif, rt and flow answer what the simulator
// models (network-cmdlets.ts); the others exist once the MSI is installed and refuse their run by name.

import type { NativeSpec } from '../shells/powershell/commands.js';
import { PsUnmodelled } from '../shells/powershell/errors.js';
import type { WindowsHost } from './windows-host.js';
import { SERVICE_DIR } from './windows-paths.js';

const UTILS_DIR = `${SERVICE_DIR}\\vrouter`;
const MODELLED = ['vif', 'rt', 'flow'];
const UNMODELLED = ['nh', 'mpls', 'vrfstats', 'dropstats', 'vxlan', 'vrouter', 'vrmemstats', 'mirror', 'vtest'];

/** Every file the utilities MSI installs. */
export const UTILS_FILES = [
  ...[...MODELLED, ...UNMODELLED].map((p) => `${UTILS_DIR}\\${p}.exe`),
  `${UTILS_DIR}\\libxml2.dll`,
  `${UTILS_DIR}\\contrail-autostart.ps1`,
  `${UTILS_DIR}\\contrail-status.ps1`,
];

/** The utilities whose output the simulator does not model: present after the install, refused when run. */
export const UTILS_NATIVES: NativeSpec<WindowsHost>[] = UNMODELLED.map((program) => ({
  names: [program, `${program}.exe`],
  run(host, argv) {
    if (!host.fs.isFile(`${UTILS_DIR}\\${program}.exe`))
      return {
        stdout: '',
        stderr: `${program} : The term '${program}' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n`,
        exitCode: 1,
      };
    throw new PsUnmodelled(`${program}.exe ${argv.join(' ')}`.trim(), program);
  },
}));
