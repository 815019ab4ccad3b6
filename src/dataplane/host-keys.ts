// Host keys trusted on first use and pinned in the state directory; a changed key is refused.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** OpenSSH's fingerprint format: SHA256:<base64 without padding>. */
export function fingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

export type HostKeyVerdict = { ok: true; pinnedNow: boolean } | { ok: false; pinned: string; presented: string };

export class HostKeyStore {
  readonly #pins: Map<string, string>;

  /** `path` is a JSON file in the state directory; null keeps pins in memory only (tests, demo). */
  constructor(private readonly path: string | null) {
    let pins: Record<string, string> = {};
    if (path) {
      try {
        pins = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
      } catch {
        pins = {};
      }
    }
    this.#pins = new Map(Object.entries(pins));
  }

  check(endpoint: string, presented: string): HostKeyVerdict {
    const pinned = this.#pins.get(endpoint);
    if (pinned === undefined) {
      this.#pins.set(endpoint, presented);
      this.#save();
      return { ok: true, pinnedNow: true };
    }
    return pinned === presented ? { ok: true, pinnedNow: false } : { ok: false, pinned, presented };
  }

  /** Forgets a pin (an operator re-installed the node and confirmed its new key). */
  forget(endpoint: string): void {
    this.#pins.delete(endpoint);
    this.#save();
  }

  #save(): void {
    if (!this.path) return;
    mkdirSync(dirname(this.path), { recursive: true });
    const tmp = `${this.path}.tmp-${process.pid}`;
    writeFileSync(tmp, `${JSON.stringify(Object.fromEntries(this.#pins), null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.path);
  }
}
