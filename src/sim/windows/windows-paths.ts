// Where things live on a simulated Windows host, and the names Windows shows for them.

export const VROUTER_EXTENSION = 'vRouter forwarding extension';
/** Server 2016's name for the host's vNIC on the Contrail switch (windows-host.ts vhostAdapter). */
export const HNS_TRANSPARENT_VNIC = 'vEthernet (HNSTransparent)';
export const AGENT_PORT = 9091;
export const SERVICE_DIR = 'C:\\Program Files\\Juniper Networks';
export const TCPIP_PARAMETERS = 'hklm:\\system\\currentcontrolset\\services\\tcpip\\parameters';
export const CONTAINERD_EXE = 'C:\\Program Files\\containerd\\containerd.exe';

const CONTRAIL_DATA = 'C:\\ProgramData\\Contrail';
export const CNM_CONFIG = `${CONTRAIL_DATA}\\etc\\contrail\\contrail-cnm-plugin.conf`;
export const AGENT_CONFIG = `${CONTRAIL_DATA}\\etc\\contrail\\contrail-vrouter-agent.conf`;
export const NODEMGR_CONFIG = `${CONTRAIL_DATA}\\etc\\contrail\\contrail-vrouter-nodemgr.conf`;
export const DOCKER_DAEMON_JSON = 'C:\\ProgramData\\docker\\config\\daemon.json';
export const DOCKER_EXE = 'C:\\Program Files\\Docker\\docker.exe';
export const DOCKERD_EXE = 'C:\\Program Files\\Docker\\dockerd.exe';
export const VIF_EXE = `${SERVICE_DIR}\\vrouter\\vif.exe`;
export const FLOW_EXE = `${SERVICE_DIR}\\vrouter\\flow.exe`;
export const RT_EXE = `${SERVICE_DIR}\\vrouter\\rt.exe`;
export const CHOCO_EXE = 'C:\\ProgramData\\chocolatey\\bin\\choco.exe';
/** Chocolatey's nssm package puts a shim here (c-a-d installs nssm with win_chocolatey). */
export const NSSM_EXE = 'C:\\ProgramData\\chocolatey\\bin\\nssm.exe';
export const PYTHON_EXE = 'C:\\Python27\\python.exe';
export const PIP_EXE = 'C:\\Python27\\Scripts\\pip.exe';
/** c-a-d and contrail-windows-ci run nodemgr as C:\\Python27\\Scripts\\contrail-nodemgr.exe --nodetype contrail-vrouter. */
export const NODEMGR_EXE = 'C:\\Python27\\Scripts\\contrail-nodemgr.exe';
/** Windows PowerShell 5.1, on every Windows Server. */
export const POWERSHELL_EXE = 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe';
