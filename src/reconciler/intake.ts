// Revision intake: each revision a source finds is validated whole (with the daemon's secrets merged in)
// before any node sees it. A bad one is recorded and leaves the last good one in force; at start, with
// nothing in force yet, the last good revision is read again from the source.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import type { DesiredState } from '../inventory/desired-state.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadInventory } from '../inventory/load-inventory.js';
import { type InventoryFiles, parseInventory } from '../inventory/parse-inventory.js';
import { ParseMemo } from '../inventory/parse-memo.js';
import { parseSecretsFile, withSecrets } from '../inventory/secrets-file.js';
import { writePrivateFileSync } from '../private-files.js';
import type { SignatureVerdict } from '../source/commit-signatures.js';
import type { Revision, Source } from '../source/source.js';
import type { Reconciler } from './reconciler.js';
import type { StatusStore } from './status-store.js';

export interface IntakeOptions {
  reconciler: Pick<Reconciler, 'apply' | 'revision'>;
  status: StatusStore;
  log: Logger;
  /** Where the last good revision's sha is kept, and its working tree when it must be read again. */
  stateDir: string;
  /** The daemon's secrets file: read with every revision, so a rotated secret takes effect at the next one. */
  secretsFile?: string;
  /** The inventory's directory in the repo, put before file names in diagnostics (`deploy/instances.yaml:3:1`). */
  shownPrefix?: string;
  /** Who signed the revision (source.verify): one that is not signed by an allowed key is rejected whole. */
  verify?: (revision: Revision, lastGood: string | undefined) => Promise<SignatureVerdict>;
  /**
   * How long reading and validating one revision may take before it is rejected: whatever a commit holds,
   * the source must get its next revision through (default 30 s; a 10,000-node inventory takes about 1 s).
   */
  deadlineMs?: number;
  /** How a revision's inventory is read: loadInventory, unless a test stands in a filesystem that hangs. */
  load?: typeof loadInventory;
  /** A revision was accepted: for systemd's status line. */
  onAccepted?: (sha: string, nodes: number) => void;
}

const DEFAULT_DEADLINE_MS = 30_000;

type Read = { ok: true; state: DesiredState } | { ok: false; errors: string[] };

export class Intake {
  readonly #lastGoodFile: string;
  /** The last revision's parse: a commit that changes one node file re-derives only that node. */
  readonly #memo = new ParseMemo();
  /** The secrets file's last text and values: the same values object keeps merged nodes the same objects. */
  #secrets?: { text: string; parsed: ReturnType<typeof parseSecretsFile> };

  constructor(private readonly options: IntakeOptions) {
    this.#lastGoodFile = join(options.stateDir, 'last-good-revision');
  }

  /** Validates a revision and puts it in force, or records why not. */
  async receive(revision: Revision, source?: Pick<Source, 'checkoutAt'>): Promise<void> {
    const { status, log, reconciler } = this.options;
    const signature = await this.options.verify?.(revision, this.#lastGood()).catch(
      (err: Error): SignatureVerdict => ({
        ok: false,
        sha: revision.sha,
        reason: `its signature could not be checked: ${err.message.split('\n')[0]}`,
      }),
    );
    const trusted: Read | undefined =
      signature && !signature.ok
        ? { ok: false, errors: [`commit ${revision.sha.slice(0, 12)} is not trusted: ${signature.reason}`] }
        : undefined;
    const result = trusted ?? (await this.#readWithin(revision.files ?? revision.dir, revision.root));
    const about = {
      ...(signature ? { signature } : {}),
      ...(revision.author ? { author: revision.author } : {}),
      ...(revision.committedAt ? { committedAt: revision.committedAt } : {}),
    };
    if (!result.ok) {
      if (!reconciler.revision) await this.#restoreLastGood(revision.sha, source);
      status.recordRevision({ sha: revision.sha, subject: revision.subject, accepted: false, errors: result.errors, ...about });
      log.error(
        { revision: revision.sha, code: errors.GC_REVISION_REJECTED.code, errors: result.errors },
        `revision ${revision.sha.slice(0, 12)} rejected; nodes stay on the last good revision`,
      );
      return;
    }
    writePrivateFileSync(this.#lastGoodFile, `${revision.sha}\n`);
    status.recordRevision({ sha: revision.sha, subject: revision.subject, accepted: true, ...about });
    log.info(
      { revision: revision.sha, nodes: result.state.nodes.length, trigger: revision.trigger, signer: signature?.signer },
      'revision accepted',
    );
    reconciler.apply({ sha: revision.sha, state: result.state });
    this.options.onAccepted?.(revision.sha, result.state.nodes.length);
  }

  /** Bad at start, with nothing in force yet: the last good revision is read again from the source. */
  async #restoreLastGood(rejected: string, source?: Pick<Source, 'checkoutAt'>): Promise<void> {
    const lastGood = this.#lastGood();
    if (!lastGood || lastGood === rejected || !source?.checkoutAt) return;
    const tree = join(this.options.stateDir, 'last-good');
    const restored = await this.#readWithin(await source.checkoutAt(lastGood, tree), tree);
    if (!restored.ok) return;
    this.options.status.recordRevision({ sha: lastGood, subject: '(the last good revision, read again at start)', accepted: true });
    this.options.reconciler.apply({ sha: lastGood, state: restored.state });
  }

  #lastGood(): string | undefined {
    return existsSync(this.#lastGoodFile) ? readFileSync(this.#lastGoodFile, 'utf8').trim() || undefined : undefined;
  }

  /**
   * The read (of the files a source read from the commit, or of a directory), or a rejection once the deadline
   * passes (the read is then left to finish on its own).
   */
  async #readWithin(from: string | (() => Promise<InventoryFiles>), repoRoot?: string): Promise<Read> {
    const ms = this.options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<Read>((resolve) => {
      timer = setTimeout(
        () => resolve({ ok: false, errors: [`reading and validating the revision took longer than ${ms / 1000}s: rejected`] }),
        ms,
      );
    });
    try {
      return await Promise.race([this.#read(from, repoRoot), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #read(from: string | (() => Promise<InventoryFiles>), repoRoot?: string): Promise<Read> {
    const load = this.options.load ?? loadInventory;
    const memo = this.#memo;
    const loaded = await (typeof from === 'string'
      ? load(from, { ...(repoRoot ? { repoRoot } : {}), memo })
      : from().then((files) => ({ result: parseInventory(files, memo) }))
    ).catch((err: Error) => err);
    if (loaded instanceof Error) return { ok: false, errors: [loaded.message] };
    if (!loaded.result.ok)
      return { ok: false, errors: loaded.result.errors.map((d) => formatDiagnostic(d, this.options.shownPrefix ?? '')) };
    const { secretsFile } = this.options;
    if (!secretsFile) return loaded.result;
    let text: string;
    try {
      text = readFileSync(secretsFile, 'utf8');
    } catch (err) {
      // A secrets file that went missing rejects the revision (nodes stay on the last good one); it never throws.
      return { ok: false, errors: [`${secretsFile}: cannot read the secrets file: ${(err as Error).message}`] };
    }
    if (this.#secrets?.text !== text) this.#secrets = { text, parsed: parseSecretsFile(secretsFile, text) };
    const secrets = this.#secrets.parsed;
    if (secrets.errors.length > 0) return { ok: false, errors: secrets.errors.map((d) => formatDiagnostic(d)) };
    return { ok: true, state: withSecrets(loaded.result.state, secrets.values) };
  }
}
