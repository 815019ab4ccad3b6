// Networking and Docker in the simulator: HNS and NAT networks, adapters, the vRouter extension, docker, vif.

import { type CmdletSpec, type NativeResult, type NativeSpec, obj } from '../shells/powershell/commands.js';
import { PsError } from '../shells/powershell/errors.js';
import { PsObject, toText } from '../shells/powershell/values.js';
import { msiContent, testCertificate } from './msi.js';
import { AGENT_PORT, DOCKER_EXE, productCode, VHOST_ADAPTER, VIF_EXE, VROUTER_EXTENSION, type WindowsHost } from './windows-host.js';

type Spec = CmdletSpec<WindowsHost>;

const getHnsNetwork: Spec = {
  name: 'Get-HnsNetwork',
  params: {},
  run: (host) =>
    host.state.hnsNetworks.map((n) =>
      obj({
        Name: n.name,
        Type: n.type,
        Id: n.id,
        Subnets: (n.subnets ?? []).map((s) => obj({ AddressPrefix: s.addressPrefix, GatewayAddress: s.gatewayAddress })),
      }),
    ),
};

const removeHnsNetwork: Spec = {
  name: 'Remove-HnsNetwork',
  params: { InputObject: { type: 'object' } },
  run(host, args, input) {
    const items = args.InputObject !== undefined ? [args.InputObject] : input;
    for (const item of items) {
      const id = item instanceof PsObject ? toText(item.get('Id')) : toText(item);
      const gone = host.state.hnsNetworks.find((n) => n.id === id);
      if (!gone) continue;
      removeNetwork(host, gone.name);
      host.record(`remove-hns-network ${id}`);
    }
    return [];
  },
};

const getNetNat: Spec = {
  name: 'Get-NetNat',
  params: { Name: { type: 'string[]', position: 0 } },
  run(host, args, _input, ctx) {
    const wanted = args.Name as string[] | undefined;
    const found = host.state.netNats.filter((n) => !wanted || wanted.some((w) => w.toLowerCase() === n.toLowerCase()));
    if (wanted && found.length === 0)
      ctx.error(
        new PsError(
          `No MSFT_NetNat objects found with property 'Name' equal to '${wanted[0]}'.`,
          'CmdletizationQuery_NotFound_Name,Get-NetNat',
          'ObjectNotFound',
        ),
      );
    return found.map((n) => obj({ Name: n }));
  },
};

const removeNetNat: Spec = {
  name: 'Remove-NetNat',
  params: { Name: { type: 'string[]', position: 0 }, InputObject: { type: 'object' } },
  supportsShouldProcess: true,
  run(host, args, input, ctx) {
    const names = (args.Name as string[] | undefined) ?? input.map((i) => toText(i instanceof PsObject ? i.get('Name') : i));
    for (const name of names) {
      if (!host.state.netNats.includes(name)) {
        ctx.error(
          new PsError(
            `No MSFT_NetNat objects found with property 'Name' equal to '${name}'.`,
            'CmdletizationQuery_NotFound_Name,Remove-NetNat',
            'ObjectNotFound',
          ),
        );
        continue;
      }
      host.state.netNats = host.state.netNats.filter((n) => n !== name);
      host.record(`remove-netnat ${name}`);
    }
    return [];
  },
};

const getNetAdapter: Spec = {
  name: 'Get-NetAdapter',
  params: { Name: { type: 'string[]', position: 0 } },
  run(host, args, _input, ctx) {
    const all = host.adapters();
    const wanted = args.Name as string[] | undefined;
    if (!wanted) return all.map((a) => obj({ Name: a.name, Status: a.status, ifIndex: a.ifIndex }));
    const out = [];
    for (const name of wanted) {
      const found = all.find((a) => a.name.toLowerCase() === name.toLowerCase());
      if (found) out.push(obj({ Name: found.name, Status: found.status, ifIndex: found.ifIndex }));
      else
        ctx.error(
          new PsError(
            `No MSFT_NetAdapter objects found with property 'Name' equal to '${name}'.  Verify the value of the property and retry.`,
            'CmdletizationQuery_NotFound_Name,Get-NetAdapter',
            'ObjectNotFound',
          ),
        );
    }
    return out;
  },
};

const getVMSwitchExtension: Spec = {
  name: 'Get-VMSwitchExtension',
  params: { VMSwitchName: { type: 'string', position: 0 }, Name: { type: 'string[]' } },
  run(host, args, _input, ctx) {
    if (host.state.features['Hyper-V'] !== 'Installed')
      throw new PsError(
        "The term 'Get-VMSwitchExtension' is not recognized as the name of a cmdlet, function, script file, or operable program.",
        'CommandNotFoundException',
        'ObjectNotFound',
      );
    if (!host.switchExists()) {
      ctx.error(
        new PsError(
          `Hyper-V was unable to find a virtual switch with name "${toText(args.VMSwitchName)}".`,
          'InvalidParameter,Microsoft.HyperV.PowerShell.Commands.GetVMSwitchExtension',
          'InvalidArgument',
        ),
      );
      return [];
    }
    const installed = host.productOf('vrouter') !== undefined;
    const extensions = [
      obj({ Name: VROUTER_EXTENSION, Enabled: installed, Running: host.extensionRunning(), SwitchName: 'Layered Ethernet1' }),
    ];
    const wanted = (args.Name as string[] | undefined)?.map((n) => n.toLowerCase());
    return installed ? extensions.filter((e) => !wanted || wanted.includes(toText(e.get('Name')).toLowerCase())) : [];
  },
};

const getNetTCPConnection: Spec = {
  name: 'Get-NetTCPConnection',
  params: { LocalPort: { type: 'int' }, State: { type: 'string' } },
  run(host, args, _input, ctx) {
    const found = host.listeningPorts().filter((p) => args.LocalPort === undefined || p === args.LocalPort);
    if (found.length === 0)
      ctx.error(
        new PsError(
          `No MSFT_NetTCPConnection objects found with property 'LocalPort' equal to '${toText(args.LocalPort)}'.`,
          'CmdletizationQuery_NotFound_LocalPort,Get-NetTCPConnection',
          'ObjectNotFound',
        ),
      );
    return found.map((p) => obj({ LocalAddress: '0.0.0.0', LocalPort: p, State: 'Listen', OwningProcess: 2000 + p }));
  },
};

function removeNetwork(host: WindowsHost, name: string): void {
  const gone = host.state.hnsNetworks.find((n) => n.name === name);
  host.state.hnsNetworks = host.state.hnsNetworks.filter((n) => n !== gone);
  if (gone?.type === 'Transparent') host.dropInterface(`vEthernet (${gone.name})`);
}

/** `docker network create -d transparent --subnet S --gateway G [-o ...interface=A] NAME` and `docker network rm NAME`. */
function network(host: WindowsHost, args: string[]): NativeResult {
  const [verb, ...rest] = args;
  const value = (flag: string) => {
    const at = rest.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (at < 0) return undefined;
    const arg = rest[at] as string;
    return arg.includes('=') && arg.startsWith('--') ? arg.slice(arg.indexOf('=') + 1) : rest[at + 1];
  };
  const flags = new Set(['-d', '--driver', '--subnet', '--gateway', '-o', '--opt']);
  const name = rest.filter((a, i) => !a.startsWith('-') && !flags.has(rest[i - 1] ?? '')).at(-1);
  if (!name) return { stdout: '', stderr: `"docker network ${verb}" requires at least 1 argument.\r\n`, exitCode: 1 };
  if (verb === 'rm') {
    if (!host.state.hnsNetworks.some((n) => n.name === name))
      return { stdout: '', stderr: `Error: No such network: ${name}\r\n`, exitCode: 1 };
    removeNetwork(host, name);
    host.record(`docker-network-rm ${name}`);
    return { stdout: `${name}\r\n`, exitCode: 0 };
  }
  if (verb !== 'create')
    return { stdout: '', stderr: `groundcrew sim: docker network ${verb} is outside the simulated subset\r\n`, exitCode: 1 };
  const driver = value('-d') ?? value('--driver') ?? 'nat';
  if (host.state.hnsNetworks.some((n) => n.name === name))
    return { stdout: '', stderr: `Error response from daemon: network with name ${name} already exists\r\n`, exitCode: 1 };
  if (driver !== 'transparent')
    return { stdout: '', stderr: `groundcrew sim: docker network create -d ${driver} is outside the simulated subset\r\n`, exitCode: 1 };
  const subnet = value('--subnet');
  const gateway = value('--gateway');
  const adapter = (value('-o') ?? value('--opt') ?? '').replace(/^com\.docker\.network\.windowsshim\.interface=/, '') || 'Ethernet0';
  if (!host.adapters().some((a) => a.name.toLowerCase() === adapter.toLowerCase()))
    return {
      stdout: '',
      stderr: `Error response from daemon: HNS failed with error : The network adapter ${adapter} was not found.\r\n`,
      exitCode: 1,
    };
  const id = productCode(name, `${subnet}@${host.state.journal.length}`).slice(1, -1);
  host.state.hnsNetworks.push({
    name,
    type: 'Transparent',
    id,
    adapter,
    ...(subnet ? { subnets: [{ addressPrefix: subnet, gatewayAddress: gateway ?? '' }] } : {}),
  });
  host.record(`docker-network-create ${name} ${subnet ?? ''} ${gateway ?? ''}`);
  return { stdout: `${id.toLowerCase()}\r\n`, exitCode: 0 };
}

const NOT_RUNNING =
  'error during connect: This error may indicate that the docker daemon is not running.: Get http://%2F%2F.%2Fpipe%2Fdocker_engine/v1.39/version: open //./pipe/docker_engine: The system cannot find the file specified.\r\n';

function imageKind(image: string): 'vrouter' | 'cnm-plugin' | undefined {
  const repo = image
    .replace(/:[^:/]*$/, '')
    .split('/')
    .pop();
  if (repo === 'contrail-windows-vrouter') return 'vrouter';
  if (repo === 'contrail-windows-cnm-plugin' || repo === 'contrail-windows-docker-driver') return 'cnm-plugin';
  return undefined;
}

function pull(host: WindowsHost, image: string): NativeResult {
  const tag = image.includes(':') ? image.slice(image.lastIndexOf(':') + 1) : 'latest';
  if (!imageKind(image) || !host.state.catalog.contrailVersions.includes(tag)) {
    return {
      stdout: '',
      stderr: `Error response from daemon: manifest for ${image} not found: manifest unknown: manifest unknown\r\n`,
      exitCode: 1,
    };
  }
  if (!host.state.images.includes(image)) {
    host.state.images.push(image);
    host.record(`docker-pull ${image}`);
  }
  return { stdout: `${tag}: Pulling from ${image.replace(/:[^:]*$/, '')}\r\nStatus: Downloaded newer image for ${image}\r\n`, exitCode: 0 };
}

/** What `docker run --rm -v HOST:C:\Artifacts IMAGE` leaves in HOST: the MSIs and certificate of that build. */
function extract(host: WindowsHost, image: string, dir: string): void {
  const version = image.slice(image.lastIndexOf(':') + 1);
  if (imageKind(image) === 'vrouter') {
    host.fs.put(`${dir}\\agent\\contrail-vrouter-agent.msi`, msiContent('agent', version));
    host.fs.put(`${dir}\\vrouter\\vRouter.msi`, msiContent('vrouter', version, host.state.catalog.signedVrouter));
    host.fs.put(`${dir}\\vrouter\\utils.msi`, msiContent('utils', version));
    host.fs.put(`${dir}\\vrouter\\vRouter.cer`, testCertificate(version));
  } else {
    host.fs.put(`${dir}\\cnm-plugin\\contrail-cnm-plugin.msi`, msiContent('cnm-plugin', version));
  }
  host.record(`docker-run ${image}`);
}

const docker: NativeSpec<WindowsHost> = {
  names: ['docker'],
  run(host, argv) {
    if (!host.fs.isFile(DOCKER_EXE))
      return {
        stdout: '',
        stderr: "docker : The term 'docker' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n",
        exitCode: 1,
      };
    const [verb, ...rest] = argv;
    if (verb === 'version' && !host.isRunning('docker')) {
      return { stdout: `Client:\r\n Version:           ${host.state.docker?.version}\r\n`, stderr: NOT_RUNNING, exitCode: 1 };
    }
    if (!host.isRunning('docker')) return { stdout: '', stderr: NOT_RUNNING, exitCode: 1 };
    const server = `${host.state.docker?.version}.3`;
    switch (verb) {
      case 'version': {
        const format = rest[rest.indexOf('--format') + 1] ?? rest[rest.indexOf('-f') + 1];
        if (format === '{{.Server.Version}}') return { stdout: `${server}\r\n`, exitCode: 0 };
        if (format === '{{.Client.Version}}') return { stdout: `${server}\r\n`, exitCode: 0 };
        return {
          stdout: `Client:\r\n Version:           ${server}\r\n\r\nServer:\r\n Engine:\r\n  Version:          ${server}\r\n`,
          exitCode: 0,
        };
      }
      case 'network':
        return network(host, rest);
      case 'pull':
        return rest[0] ? pull(host, rest[0]) : { stdout: '', stderr: '"docker pull" requires exactly 1 argument.\r\n', exitCode: 1 };
      case 'images':
        return { stdout: host.state.images.map((i) => `${i}\r\n`).join(''), exitCode: 0 };
      case 'image':
        if (rest[0] === 'inspect' && rest[1]) {
          return host.state.images.includes(rest[1])
            ? { stdout: `[{"RepoTags":["${rest[1]}"]}]\r\n`, exitCode: 0 }
            : { stdout: '[]\r\n', stderr: `Error: No such image: ${rest[1]}\r\n`, exitCode: 1 };
        }
        break;
      case 'run': {
        const image = rest.filter((a, i) => !a.startsWith('-') && !['-v', '--volume'].includes(rest[i - 1] ?? '')).at(0);
        const volume = rest[rest.findIndex((a) => a === '-v' || a === '--volume') + 1];
        if (!image || !rest.includes('--rm') || !volume) break;
        if (!host.state.images.includes(image)) {
          const pulled = pull(host, image);
          if (pulled.exitCode !== 0) return pulled;
        }
        const hostDir = volume.replace(/:C:\\artifacts\\?$/i, '');
        extract(host, image, hostDir);
        return { stdout: 'Artifacts copied.\r\n', exitCode: 0 };
      }
    }
    return {
      stdout: '',
      stderr: `groundcrew sim: docker ${argv.join(' ')} is outside the simulated subset (docs/sim-powershell.md)\r\n`,
      exitCode: 1,
    };
  },
};

/** vif (from the vRouter utilities MSI): the vRouter's interface table, read through ksync. */
const vif: NativeSpec<WindowsHost> = {
  names: ['vif'],
  run(host, argv) {
    if (!host.fs.isFile(VIF_EXE))
      return {
        stdout: '',
        stderr: "vif : The term 'vif' is not recognized as the name of a cmdlet, function, script file, or operable program.\r\n",
        exitCode: 1,
      };
    if (argv[0] !== '--list') return { stdout: '', stderr: 'Usage: vif --list\r\n', exitCode: 1 };
    if (!host.extensionRunning())
      return {
        stdout: '',
        stderr: 'Unable to open ksync pipe \\\\.\\pipe\\ksync: The system cannot find the file specified.\r\n',
        exitCode: 1,
      };
    const rows = ['Vrouter Interface Table', '', 'vif0/0      OS: Ethernet1', `vif0/1      OS: ${VHOST_ADAPTER}`];
    if (host.isRunning('contrail-vrouter-agent')) rows.push(`vif0/2      OS: pkt0`, `            agent port ${AGENT_PORT}`);
    return { stdout: `${rows.join('\r\n')}\r\n`, exitCode: 0 };
  },
};

export const NETWORK_CMDLETS: Spec[] = [
  getHnsNetwork,
  removeHnsNetwork,
  getNetNat,
  removeNetNat,
  getNetAdapter,
  getVMSwitchExtension,
  getNetTCPConnection,
];
export const NETWORK_NATIVES: NativeSpec<WindowsHost>[] = [docker, vif];
