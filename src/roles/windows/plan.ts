// The Windows phases of DESIGN section 5 for one node: which are planned, why, and their resources.

import { keystoneGates, openstackReason, overlayReason } from '../common-phases.js';
import { runsContrail, type WindowsRoleInput } from '../input.js';
import { keystoneToken } from '../keystone.js';
import type { Phase } from '../phase.js';
import type { NodePlan, PlannedPhase } from '../plan.js';
import { windowsDriver } from './driver.js';
import { windowsKubelet } from './kubelet.js';
import { windowsOverlay } from './overlay.js';
import { windowsPrereqs } from './prereqs.js';
import { windowsTestSigning } from './test-signing.js';
import { windowsVerify } from './verify.js';
import { vrouterImage, windowsVrouter } from './vrouter.js';

const planned = (phase: Phase, reason: string, more: Partial<PlannedPhase> = {}): PlannedPhase => ({
  ...phase,
  reason,
  batchesReboot: false,
  gates: [],
  ...more,
});

export function windowsPlan(input: WindowsRoleInput): NodePlan {
  const docker = input.dockerVersion ? `Docker ${input.dockerVersion}` : 'Docker (any version)';
  const contrail = input.contrailVersion;
  const phases: PlannedPhase[] = [
    planned(
      windowsPrereqs(input),
      `Windows features Containers and Hyper-V, ${docker}, daemon.json bridge none, WinNAT off, C:\\ProgramData\\Contrail`,
      { batchesReboot: true },
    ),
  ];
  if (input.testSigning) {
    phases.push(
      planned(
        windowsTestSigning(),
        'WINDOWS_ENABLE_TEST_SIGNING is set and WINDOWS_USE_SIGNED_VROUTER is not: the unsigned vRouter driver needs test signing',
        { batchesReboot: true },
      ),
    );
  }
  if (input.overlay) {
    const how = 'transparent network and gateway, IP routing, a route to each other subnet via its node, portproxy for published ports';
    phases.push(planned(windowsOverlay(input.overlay), overlayReason(input.overlay, how)));
  }
  if (input.keystone) {
    const phase = { name: 'openstack', resources: [keystoneToken('windows', input.keystone)] };
    phases.push(planned(phase, openstackReason({ keystone: input.keystone }), { gates: keystoneGates(input.keystone) }));
  }
  if (input.roles.includes('vrouter')) {
    phases.push(planned(windowsVrouter(input), `role vrouter: vRouter, utils and agent MSIs ${contrail} from ${vrouterImage(input)}`));
  }
  if (input.roles.includes('win_cnm_plugin')) {
    phases.push(
      planned(windowsDriver(input), `role win_cnm_plugin: docker driver ${contrail}, then the agent (order Docker, driver, agent)`),
    );
  }
  if (input.kubelet) {
    const what = `role k8s_node: containerd present, kubelet ${input.kubelet.version}, bootstrap kubeconfig and kubelet config, the kubelet service running`;
    phases.push(planned(windowsKubelet(input.kubelet, input.node), what));
  }
  const verified = runsContrail(input)
    ? 'services running, vRouter extension enabled, data-plane pipes present, versions as desired'
    : 'Docker running';
  phases.push(planned(windowsVerify(input), verified));
  return { os: 'windows', phases, batchedReboot: 'taken only when a feature install or test signing asks for a reboot; both share one' };
}
