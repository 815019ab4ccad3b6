// Native bindings through koffi: sd_notify to a real NOTIFY_SOCKET, and clear errors where a library is missing.

import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadLibrary } from '../../../src/dataplane/native/library.js';
import { systemdNotifier } from '../../../src/dataplane/native/sd-notify.js';

/** A unix datagram socket bound at `path` (Node's dgram cannot; Python's socket can), printing what it receives. */
function notifySocket(path: string, count: number): Promise<{ ready: Promise<void>; messages: Promise<string[]> }> {
  const py = spawn('python3', [
    '-c',
    `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(10)
print("bound", flush=True)
for _ in range(int(sys.argv[2])):
    print(s.recv(4096).decode().replace("\\n", "|"), flush=True)
`,
    path,
    String(count),
  ]);
  let out = '';
  const ready = new Promise<void>((resolve) =>
    py.stdout.on('data', (d) => {
      out += d;
      if (out.includes('bound\n')) resolve();
    }),
  );
  const messages = new Promise<string[]>((resolve) => py.on('exit', () => resolve(out.split('\n').slice(1).filter(Boolean))));
  return Promise.resolve({ ready, messages });
}

afterEach(() => {
  delete process.env.NOTIFY_SOCKET;
});

describe('sd_notify', () => {
  it('sends READY=1, STATUS and WATCHDOG=1 to the socket systemd names in NOTIFY_SOCKET', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gc-notify-')), 'notify.sock');
    const { ready, messages } = await notifySocket(path, 3);
    await ready;
    process.env.NOTIFY_SOCKET = path;
    const notifier = systemdNotifier();
    expect(notifier.ready('watching 6 nodes')).toBe(true);
    expect(notifier.status('converging 2 of 6')).toBe(true);
    expect(notifier.watchdog()).toBe(true);
    expect(await messages).toEqual(['READY=1|STATUS=watching 6 nodes', 'STATUS=converging 2 of 6', 'WATCHDOG=1']);
  });

  it('does nothing, and says so, when not started by systemd', () => {
    expect(systemdNotifier().ready()).toBe(false);
  });
});

describe('missing native libraries', () => {
  it('a library that is not there is GC_NATIVE_UNAVAILABLE with what to do, not a crash', () => {
    expect(() => loadLibrary('libgroundcrew-nope.so.7', 'install the nope package')).toThrow(
      expect.objectContaining({
        code: 'GC_NATIVE_UNAVAILABLE',
        message: expect.stringMatching(/cannot load libgroundcrew-nope\.so\.7 .*: install the nope package/),
      }),
    );
  });
});
