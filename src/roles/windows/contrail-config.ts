// The Contrail configuration files of a Windows compute, with every key the references write:
// contrail-cnm-plugin.conf (c-a-d contrail_cnm_windows/templates/contrail-cnm-plugin.conf.j2 and
// contrail-windows-ci Configuration.ps1 New-CNMPluginConfigFile), contrail-vrouter-agent.conf
// (c-a-d contrail_vrouter_windows/templates/contrail-vrouter-agent.conf.j2, with the adapters read from the
// host as c-a-d's "fetch network adapters information" task does) and contrail-vrouter-nodemgr.conf
// (c-a-d contrail-nodemgr-win.conf.j2, with contrail-windows-ci New-NodeMgrConfigFile's [SANDESH] section).

import { oneLineEach } from '../config-lines.js';
import type { WindowsRoleInput } from '../input.js';
import { keystoneRoot } from '../keystone.js';

const ETC = 'C:\\ProgramData\\Contrail\\etc\\contrail';
export const CNM_CONFIG = `${ETC}\\contrail-cnm-plugin.conf`;
export const AGENT_CONFIG = `${ETC}\\contrail-vrouter-agent.conf`;
export const NODEMGR_CONFIG = `${ETC}\\contrail-vrouter-nodemgr.conf`;
export const LOG_DIR = 'C:\\ProgramData\\Contrail\\var\\log\\contrail';
/** The DNS client port of c-a-d's DNS_SERVER_PORT default (and contrail-windows-ci's agent config). */
const DNS_PORT = 53;
/** The collector port of c-a-d's COLLECTOR_PORT default. */
const COLLECTOR_PORT = 8086;

const nodes = (list: string) => list.split(/[ ,]+/).filter(Boolean);

/** The config API the driver talks to: the configApi address, else the first control node (CONFIG_NODES in c-a-d). */
function controller(input: WindowsRoleInput): string {
  return input.configApi?.address ?? nodes(input.controlNodes)[0] ?? '';
}

/** The CNM plugin's config. It holds Keystone's password: it only ever travels on stdin. */
export function cnmConfig(input: WindowsRoleInput): string[] {
  const k = input.keystone;
  return oneLineEach(CNM_CONFIG, [
    '[DRIVER]',
    `Adapter=${input.physicalInterface}`,
    `ControllerIP=${controller(input)}`,
    `ControllerPort=${input.configApi?.port ?? 8082}`,
    '',
    '[LOGGING]',
    'LogLevel=Info',
    '',
    '[AUTH]',
    `AuthMethod=${k ? 'keystone' : 'noauth'}`,
    ...(k
      ? [
          '',
          '[KEYSTONE]',
          // c-a-d's template: KEYSTONE_AUTH_PROTO://KEYSTONE_AUTH_HOST:KEYSTONE_AUTH_PUBLIC_PORT KEYSTONE_AUTH_URL_VERSION. The
          // plugin's client (contrail-go-api KeystoneClient.Authenticate) posts a v2.0 body to <Os_auth_url>/tokens.
          `Os_auth_url=${keystoneRoot(k)}${k.urlVersion ?? '/v2.0'}`,
          `Os_username=${k.user}`,
          `Os_tenant_name=${k.project}`,
          `Os_password=${k.password}`,
          'Os_token=',
        ]
      : []),
  ]);
}

/** What the agent's config needs from the host once the CNM plugin made the vhost adapter. */
export interface HostAdapters {
  physical: string;
  vhost: string;
  ip: string;
  prefix: number;
  gateway: string | null;
}

/** `name` is the node's virtual-router name (router-name.ts): the agent must introduce itself by it. */
export function agentConfig(input: WindowsRoleInput, host: HostAdapters, name: string): string[] {
  const control = nodes(input.controlNodes);
  return oneLineEach(AGENT_CONFIG, [
    '[DEFAULT]',
    'platform=windows',
    `hostname=${name}`,
    '',
    '[CONTROL-NODE]',
    `servers=${control.map((n) => `${n}:5269`).join(' ')}`,
    '',
    '[DNS]',
    `dns_client_port=${DNS_PORT}`,
    // c-a-d contrail_vrouter_windows "append dns client port to dns nodes ip's": DNS_NODES (default CONTROL_NODES).
    `servers=${nodes(input.dnsNodes ?? input.controlNodes)
      .map((n) => `${n}:${DNS_PORT}`)
      .join(' ')}`,
    '',
    '[VIRTUAL-HOST-INTERFACE]',
    `name=${host.vhost}`,
    `ip=${host.ip}/${host.prefix}`,
    ...(host.gateway ? [`gateway=${host.gateway}`] : []),
    `physical_interface=${host.physical}`,
  ]);
}

export function nodemgrConfig(input: WindowsRoleInput): string[] {
  return oneLineEach(NODEMGR_CONFIG, [
    '[DEFAULTS]',
    'log_local=1',
    'log_level=SYS_DEBUG',
    `log_file=${LOG_DIR}\\contrail-vrouter-nodemgr.log`,
    `hostip=${input.address ?? ''}`,
    '',
    '[COLLECTOR]',
    // c-a-d "append collector port to collector nodes ip's": ANALYTICS_NODES (default CONTROLLER_NODES).
    `server_list=${nodes(input.analyticsNodes ?? input.controlNodes)
      .map((n) => `${n}:${COLLECTOR_PORT}`)
      .join(' ')}`,
    '',
    // contrail-windows-ci New-NodeMgrConfigFile: neither introspect nor Sandesh over SSL (no certificates on the node).
    '[SANDESH]',
    'introspect_ssl_enable=False',
    'sandesh_ssl_enable=False',
  ]);
}
