// systemd's sd_notify from libsystemd: READY=1 when the daemon serves, STATUS=..., WATCHDOG=1.

import { loadLibrary } from './library.js';

export interface Notifier {
  /** Sends `state` (e.g. "READY=1\nSTATUS=watching 6 nodes"); false when not run by systemd. */
  notify(state: string): boolean;
  ready(status?: string): boolean;
  status(text: string): boolean;
  watchdog(): boolean;
}

let sdNotify: ((unsetEnvironment: number, state: string) => number) | undefined;

export function systemdNotifier(): Notifier {
  sdNotify ??= loadLibrary('libsystemd.so.0', 'install libsystemd0 (Debian) or run without Type=notify').func(
    'int sd_notify(int unset_environment, const char *state)',
  ) as (u: number, s: string) => number;
  const send = sdNotify;
  const notify = (state: string) => process.env.NOTIFY_SOCKET !== undefined && send(0, state) > 0;
  return {
    notify,
    ready: (status) => notify(status ? `READY=1\nSTATUS=${status}` : 'READY=1'),
    status: (text) => notify(`STATUS=${text}`),
    watchdog: () => notify('WATCHDOG=1'),
  };
}
