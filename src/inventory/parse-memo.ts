// What one parse of an inventory leaves for the next: each file's parse and what was read from it, by path and
// text. A commit that changes nodes/node-1.yaml then opens only that file and re-derives only that node; a
// change to instances.yaml or groundcrew.yaml re-derives every node, as they depend on it. Only the files of
// the last parse are kept, so the memo holds one revision. Pure: no I/O.

import type { Diagnostic } from './diagnostic.js';
import type { YamlSource } from './yaml-source.js';

/** One file as the last parse opened it: its source (when it could be read) and the problems opening found. */
export interface OpenedFile {
  text: string;
  refused?: string;
  src?: YamlSource;
  diags: readonly Diagnostic[];
  /** What later steps read from this file (node-file settings, the per-node reads of instances.yaml), by name. */
  readonly derived: Map<string, unknown>;
}

export class ParseMemo {
  #previous = new Map<string, OpenedFile>();
  #current = new Map<string, OpenedFile>();
  /** Per-parse values that are not any one file's (the defaults when there is no groundcrew.yaml). */
  readonly constants = new Map<string, unknown>();

  /** Starts a parse: files not opened during it are forgotten at `end`. */
  begin(): void {
    this.#current = new Map();
  }

  /** Ends the parse: its files are kept for the next, their syntax trees let go (YamlSource.release). */
  end(): void {
    this.#previous = this.#current;
    for (const file of this.#previous.values()) file.src?.release();
  }

  /** The file as opened before, when its text (and refusal) is the same; `open` otherwise. */
  opened(path: string, text: string, refused: string | undefined, open: () => OpenedFile): OpenedFile {
    const before = this.#previous.get(path) ?? this.#current.get(path);
    const file = before && before.text === text && before.refused === refused ? before : open();
    this.#current.set(path, file);
    return file;
  }
}

/** `make()`, once per file and name. */
export function derive<T>(file: OpenedFile, name: string, make: () => T): T {
  if (file.derived.has(name)) return file.derived.get(name) as T;
  const value = make();
  file.derived.set(name, value);
  return value;
}
