// Who held each node's owner key, and when: `etcdctl watch` on the owners prefix, each event stamped when the
// test received it. Checked against the hosts' call logs: a command from a member that did not hold the
// node's key at that moment is a node driven by two members, or by a fenced one.

import { type ChildProcess, spawn } from 'node:child_process';
import type { LabCall } from '../lab/lab.js';

export interface Tenure {
  node: string;
  member: string;
  from: number;
  /** When the key was deleted or passed to another lease; open while held. */
  to?: number;
  /** The member whose put overwrote the key while this one held it (a take by force), if any. */
  overwrittenBy?: string;
}

/** A key is created before its owner sends anything; a call may still be logged before the test sees the event. */
const SEEN_LATE_MS = 1000;

export class OwnerTimeline {
  readonly #tenures: Tenure[] = [];
  #proc: ChildProcess | undefined;
  #buffer = '';
  #failed: Error | undefined;

  /** Each owner key's holders so far, once watch() has begun (read before, it would blame every call on nobody). */
  get tenures(): Tenure[] {
    if (!this.#proc) throw new Error('the owner timeline is not watching etcd');
    if (this.#failed) throw new Error(`the owner timeline's etcdctl watch failed: ${this.#failed.message}`, { cause: this.#failed });
    return this.#tenures;
  }

  watch(etcdctl: string, endpoints: string[], prefix: string): void {
    this.#proc = spawn(etcdctl, [`--endpoints=${endpoints.join(',')}`, 'watch', '--prefix', prefix, '-w', 'json'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, ETCDCTL_API: '3' },
    });
    // Not a crash of the test's process: the test fails when it reads the tenures.
    this.#proc.on('error', (err) => {
      this.#failed = err;
    });
    this.#proc.stdout?.on('data', (d: Buffer) => {
      this.#buffer += d.toString();
      for (let nl = this.#buffer.indexOf('\n'); nl >= 0; nl = this.#buffer.indexOf('\n')) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        if (line.trim()) this.#onLine(line, prefix);
      }
    });
  }

  #onLine(line: string, prefix: string): void {
    const at = Date.now();
    const response = JSON.parse(line) as { Events?: { type?: number | string; kv: { key: string; value?: string } }[] };
    for (const event of response.Events ?? []) {
      const node = Buffer.from(event.kv.key, 'base64').toString().slice(prefix.length);
      const open = this.#tenures.find((t) => t.node === node && t.to === undefined);
      if (open) open.to = at;
      if (event.type === 1 || event.type === 'DELETE') continue;
      const { member } = JSON.parse(Buffer.from(event.kv.value ?? '', 'base64').toString()) as { member: string };
      // A put on a key that was not deleted first, by another member: taken by force. (The events close and
      // open tenures at one moment either way, so only this tells a hand-over from a take.)
      if (open && open.member !== member) open.overwrittenBy = member;
      this.#tenures.push({ node, member, from: at });
    }
  }

  /** Calls to `node` from a member that did not hold its key then. */
  strays(node: string, calls: LabCall[]): LabCall[] {
    return calls.filter(
      (c) =>
        c.caller !== '-' &&
        !this.tenures.some(
          (t) => t.node === node && t.member === c.caller && c.at >= t.from - SEEN_LATE_MS && c.at <= (t.to ?? Number.POSITIVE_INFINITY),
        ),
    );
  }

  /** Tenures of `node` another member's put ended: its key was taken without being let go first. */
  overwritten(node: string): Tenure[] {
    return this.tenures.filter((t) => t.node === node && t.overwrittenBy !== undefined);
  }

  stop(): void {
    this.#proc?.kill('SIGKILL');
  }
}
