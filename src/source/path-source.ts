// A local working copy watched for edits (people changing the inventory on the control host): chokidar,
// debounced, and the revision named after the content, so saving a file twice is one revision.

import { createHash } from 'node:crypto';
import { type FSWatcher, watch } from 'chokidar';
import type { Logger } from 'pino';
import { readInventoryFiles } from '../inventory/load-inventory.js';
import type { OnRevision, Source } from './source.js';

export interface PathSourceOptions {
  dir: string;
  debounceMs: number;
  log: Logger;
  onRevision: OnRevision;
}

export class PathSource implements Source {
  #watcher?: FSWatcher;
  #timer?: NodeJS.Timeout;
  #head?: string;
  #running: Promise<void> = Promise.resolve();

  constructor(private readonly options: PathSourceOptions) {}

  get head(): string | undefined {
    return this.#head;
  }

  async start(): Promise<void> {
    this.#watcher = watch(this.options.dir, {
      ignoreInitial: true,
      // A link in the working copy is refused by the reader; chokidar must not wander where it points.
      followSymlinks: false,
      ignored: (path) => /(^|[/\\])\.git([/\\]|$)/.test(path),
    });
    this.#watcher.on('all', (_event, path) => {
      if (!/\.ya?ml$/.test(path)) return;
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.trigger(`file change (${path})`), this.options.debounceMs);
    });
    // The first look once the watcher is ready: an edit made while it scanned would otherwise be missed.
    await new Promise<void>((resolve) => this.#watcher?.once('ready', resolve));
    await this.trigger('start');
  }

  trigger(reason: string): Promise<void> {
    this.#running = this.#running.then(() => this.#look(reason)).catch((err: unknown) => this.options.log.error({ err }, 'path source'));
    return this.#running;
  }

  async stop(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    await this.#watcher?.close();
    await this.#running;
  }

  async #look(trigger: string): Promise<void> {
    const { dir } = this.options;
    const hash = createHash('sha256');
    // The texts the inventory reader read (links, pipes and devices refused, bytes capped): hashing the
    // files again by name would follow a link to whatever it names.
    const { files } = await readInventoryFiles(dir).catch(() => ({ files: undefined }));
    const texts = files ? [files.instances, ...(files.repoFile ? [files.repoFile] : []), ...files.nodeFiles] : [];
    for (const file of texts)
      hash
        .update(file.path)
        .update('\0')
        .update(file.refused ?? '')
        .update('\0')
        .update(file.text)
        .update('\0');
    const sha = `local-${hash.digest('hex').slice(0, 12)}`;
    if (sha === this.#head) return;
    this.#head = sha;
    this.options.log.info({ sha, trigger }, 'working copy changed');
    await this.options.onRevision({ sha, dir, subject: `working copy of ${dir}`, trigger });
  }
}
