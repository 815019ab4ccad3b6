// Native bindings through koffi: sd_notify to a real NOTIFY_SOCKET, and clear errors where a library is missing.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadLibrary } from '../../../../src/dataplane/native/library.js';
import { systemdNotifier } from '../../../../src/dataplane/native/sd-notify.js';
import { notifySocket } from '../../../support/notify-socket.js';
import { waitUntil } from '../../../support/wait-until.js';

afterEach(() => {
  delete process.env.NOTIFY_SOCKET;
});

describe('sd_notify', () => {
  it('sends READY=1, STATUS and WATCHDOG=1 to the socket systemd names in NOTIFY_SOCKET', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'gc-notify-')), 'notify.sock');
    const socket = await notifySocket(path);
    try {
      process.env.NOTIFY_SOCKET = path;
      const notifier = systemdNotifier();
      expect(notifier.ready('watching 6 nodes')).toBe(true);
      expect(notifier.status('converging 2 of 6')).toBe(true);
      expect(notifier.watchdog()).toBe(true);
      const messages = await waitUntil('three messages', () => socket.messages.length >= 3 && socket.messages);
      expect(messages).toEqual(['READY=1|STATUS=watching 6 nodes', 'STATUS=converging 2 of 6', 'WATCHDOG=1']);
    } finally {
      socket.close();
    }
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
