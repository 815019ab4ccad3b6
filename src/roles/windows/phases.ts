// The Windows phases of DESIGN section 5, built for one node.

import type { WindowsRoleInput } from '../input.js';
import { keystoneToken } from '../keystone.js';
import type { Phase } from '../phase.js';
import { windowsDriver } from './driver.js';
import { windowsKubelet } from './kubelet.js';
import { windowsOverlay } from './overlay.js';
import { windowsPrereqs } from './prereqs.js';
import { windowsTestSigning } from './test-signing.js';
import { windowsVerify } from './verify.js';
import { windowsVrouter } from './vrouter.js';

export function windowsPhases(input: WindowsRoleInput): Phase[] {
  return [
    windowsPrereqs(input),
    ...(input.testSigning ? [windowsTestSigning()] : []),
    ...(input.overlay ? [windowsOverlay(input.overlay)] : []),
    ...(input.keystone ? [{ name: 'openstack', resources: [keystoneToken('windows', input.keystone)] }] : []),
    windowsVrouter(input),
    windowsDriver(input),
    ...(input.kubelet ? [windowsKubelet(input.kubelet, input.node)] : []),
    windowsVerify(input),
  ];
}
