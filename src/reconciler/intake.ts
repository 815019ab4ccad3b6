// Revision intake: each revision a source finds is validated whole (with the daemon's secrets merged in)
// before any node sees it. A bad one is recorded and leaves the last good one in force; at start, with
// nothing in force yet, the last good revision is read again from the source.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { errors } from '../errors.js';
import type { DesiredState } from '../inventory/desired-state.js';
import { formatDiagnostic } from '../inventory/diagnostic.js';
import { loadInventory } from '../inventory/load-inventory.js';
import { parseSecretsFile, withSecrets } from '../inventory/secrets-file.js';
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
  /** A revision was accepted: for systemd's status line. */
  onAccepted?: (sha: string, nodes: number) => void;
}

type Read = { ok: true; state: DesiredState } | { ok: false; errors: string[] };

export class Intake {
  readonly #lastGoodFile: string;

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
    const result = trusted ?? (await this.#read(revision.dir));
    const signed = signature ? { signature } : {};
    if (!result.ok) {
      if (!reconciler.revision) await this.#restoreLastGood(revision.sha, source);
      status.recordRevision({ sha: revision.sha, subject: revision.subject, accepted: false, errors: result.errors, ...signed });
      log.error(
        { revision: revision.sha, code: errors.GC_REVISION_REJECTED.code, errors: result.errors },
        `revision ${revision.sha.slice(0, 12)} rejected; nodes stay on the last good revision`,
      );
      return;
    }
    writeFileSync(this.#lastGoodFile, `${revision.sha}\n`);
    status.recordRevision({ sha: revision.sha, subject: revision.subject, accepted: true, ...signed });
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
    const restored = await this.#read(await source.checkoutAt(lastGood, join(this.options.stateDir, 'last-good')));
    if (!restored.ok) return;
    this.options.status.recordRevision({ sha: lastGood, subject: '(the last good revision, read again at start)', accepted: true });
    this.options.reconciler.apply({ sha: lastGood, state: restored.state });
  }

  #lastGood(): string | undefined {
    return existsSync(this.#lastGoodFile) ? readFileSync(this.#lastGoodFile, 'utf8').trim() || undefined : undefined;
  }

  async #read(dir: string): Promise<Read> {
    const loaded = await loadInventory(dir).catch((err: Error) => err);
    if (loaded instanceof Error) return { ok: false, errors: [loaded.message] };
    if (!loaded.result.ok)
      return { ok: false, errors: loaded.result.errors.map((d) => formatDiagnostic(d, this.options.shownPrefix ?? '')) };
    const { secretsFile } = this.options;
    if (!secretsFile) return loaded.result;
    const secrets = parseSecretsFile(secretsFile, readFileSync(secretsFile, 'utf8'));
    if (secrets.errors.length > 0) return { ok: false, errors: secrets.errors.map((d) => formatDiagnostic(d)) };
    return { ok: true, state: withSecrets(loaded.result.state, secrets.values) };
  }
}
