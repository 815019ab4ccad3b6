// Linux interface probes through libc: does vhost0 / pkt0 exist (if_nametoindex), is it up (SIOCGIFFLAGS)?

import { ffi, loadLibrary } from './library.js';

const AF_INET = 2;
const SOCK_DGRAM = 2;
const SIOCGIFFLAGS = 0x8913;
const IFF_UP = 0x1;
const IFF_RUNNING = 0x40;

export interface InterfaceState {
  name: string;
  exists: boolean;
  index: number;
  up: boolean;
  running: boolean;
}

interface Libc {
  if_nametoindex(name: string): number;
  socket(domain: number, type: number, protocol: number): number;
  ioctl(fd: number, request: number, ifr: { ifr_name: string; ifr_flags: number }): number;
  close(fd: number): number;
}

let libc: Libc | undefined;

function load(): Libc {
  if (libc) return libc;
  const lib = loadLibrary('libc.so.6', 'groundcrew needs glibc for interface probes');
  const k = ffi();
  // struct ifreq: a 16-byte name, then a union whose first member for SIOCGIFFLAGS is short ifr_flags (40 bytes in all).
  const ifreq = k.struct('gc_ifreq', { ifr_name: k.array('char', 16, 'String'), ifr_flags: 'int16_t', pad: k.array('uint8_t', 22) });
  libc = {
    if_nametoindex: lib.func('unsigned int if_nametoindex(const char *name)') as Libc['if_nametoindex'],
    socket: lib.func('int socket(int domain, int type, int protocol)') as Libc['socket'],
    ioctl: lib.func('ioctl', 'int', ['int', 'unsigned long', k.inout(k.pointer(ifreq))]) as Libc['ioctl'],
    close: lib.func('int close(int fd)') as Libc['close'],
  };
  return libc;
}

/** Probes one interface of the network namespace this process runs in. */
export function probeInterface(name: string): InterfaceState {
  if (name.length === 0 || name.length > 15) throw new RangeError(`interface name "${name}" must be 1 to 15 characters`);
  const c = load();
  const index = c.if_nametoindex(name);
  if (index === 0) return { name, exists: false, index: 0, up: false, running: false };
  const fd = c.socket(AF_INET, SOCK_DGRAM, 0);
  try {
    const ifr = { ifr_name: name, ifr_flags: 0, pad: new Array(22).fill(0) };
    if (c.ioctl(fd, SIOCGIFFLAGS, ifr) !== 0) return { name, exists: true, index, up: false, running: false };
    return { name, exists: true, index, up: (ifr.ifr_flags & IFF_UP) !== 0, running: (ifr.ifr_flags & IFF_RUNNING) !== 0 };
  } finally {
    c.close(fd);
  }
}
