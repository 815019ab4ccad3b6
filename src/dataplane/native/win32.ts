// Windows data-plane probes (kernel32, iphlpapi): the vRouter's named pipes, the flow0 shared memory,
// the route table. Declared and type-checked everywhere; loaded only on Windows.

import { errors } from '../../errors.js';
import { ffi, loadLibrary } from './library.js';

const GENERIC_READ = 0x80000000;
const OPEN_EXISTING = 3;
const INVALID_HANDLE_VALUE = -1;
const FILE_MAP_READ = 0x0004;
const ERROR_PIPE_BUSY = 231;
const AF_UNSPEC = 0;

export interface Win32Probes {
  /** `\\.\pipe\<name>` exists (a busy pipe exists too). */
  pipeExists(name: 'ksync' | 'pkt0' | 'Contrail' | (string & {})): boolean;
  /** A named file mapping (the vRouter's flow table, "flow0") can be opened. */
  fileMappingExists(name: string): boolean;
  /** Number of IPv4 and IPv6 routes in the table. */
  routeCount(): number;
}

interface Kernel32 {
  CreateFileW(name: string, access: number, share: number, security: null, disposition: number, flags: number, template: null): number;
  OpenFileMappingW(access: number, inherit: boolean, name: string): number;
  CloseHandle(handle: number): boolean;
  GetLastError(): number;
}

interface IpHlpApi {
  GetIpForwardTable2(family: number, table: [unknown]): number;
  FreeMibTable(table: unknown): void;
}

export function loadWin32Probes(): Win32Probes {
  if (process.platform !== 'win32') {
    throw errors.GC_NATIVE_UNAVAILABLE(
      `the Windows data-plane probes need Windows; this is ${process.platform} (use the PowerShell checks over SSH instead)`,
    );
  }
  const k = ffi();
  const kernel32lib = loadLibrary('kernel32.dll', 'kernel32.dll is part of Windows');
  const iphlpapilib = loadLibrary('iphlpapi.dll', 'iphlpapi.dll is part of Windows');
  const HANDLE = k.pointer('HANDLE', k.opaque());
  const kernel32: Kernel32 = {
    CreateFileW: kernel32lib.func('__stdcall', 'CreateFileW', 'intptr_t', [
      'str16',
      'uint32_t',
      'uint32_t',
      'void *',
      'uint32_t',
      'uint32_t',
      'void *',
    ]) as Kernel32['CreateFileW'],
    OpenFileMappingW: kernel32lib.func('__stdcall', 'OpenFileMappingW', 'intptr_t', [
      'uint32_t',
      'bool',
      'str16',
    ]) as Kernel32['OpenFileMappingW'],
    CloseHandle: kernel32lib.func('__stdcall', 'CloseHandle', 'bool', ['intptr_t']) as Kernel32['CloseHandle'],
    GetLastError: kernel32lib.func('__stdcall', 'GetLastError', 'uint32_t', []) as Kernel32['GetLastError'],
  };
  const MIB_IPFORWARD_TABLE2 = k.struct('MIB_IPFORWARD_TABLE2_HEAD', { NumEntries: 'uint32_t' });
  const iphlpapi: IpHlpApi = {
    GetIpForwardTable2: iphlpapilib.func('__stdcall', 'GetIpForwardTable2', 'uint32_t', [
      'int',
      k.out(k.pointer(k.pointer(MIB_IPFORWARD_TABLE2))),
    ]) as IpHlpApi['GetIpForwardTable2'],
    FreeMibTable: iphlpapilib.func('__stdcall', 'FreeMibTable', 'void', ['void *']) as IpHlpApi['FreeMibTable'],
  };
  void HANDLE;
  return {
    pipeExists(name) {
      const handle = kernel32.CreateFileW(`\\\\.\\pipe\\${name}`, GENERIC_READ, 0, null, OPEN_EXISTING, 0, null);
      if (handle === INVALID_HANDLE_VALUE) return kernel32.GetLastError() === ERROR_PIPE_BUSY;
      kernel32.CloseHandle(handle);
      return true;
    },
    fileMappingExists(name) {
      const handle = kernel32.OpenFileMappingW(FILE_MAP_READ, false, name);
      if (handle === 0) return false;
      kernel32.CloseHandle(handle);
      return true;
    },
    routeCount() {
      const out: [unknown] = [null];
      if (iphlpapi.GetIpForwardTable2(AF_UNSPEC, out) !== 0) throw errors.GC_NATIVE_UNAVAILABLE('GetIpForwardTable2 failed');
      try {
        return (k.decode(out[0], MIB_IPFORWARD_TABLE2) as { NumEntries: number }).NumEntries;
      } finally {
        iphlpapi.FreeMibTable(out[0]);
      }
    },
  };
}
