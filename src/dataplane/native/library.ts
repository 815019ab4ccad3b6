// Loading native libraries with koffi (the only folder that imports it): a missing one is a clear error.

import { createRequire } from 'node:module';
import type { LibraryHandle } from 'koffi';
import { errors } from '../../errors.js';

type Koffi = typeof import('koffi');

let koffi: Koffi | undefined;

export function ffi(): Koffi {
  koffi ??= createRequire(import.meta.url)('koffi') as Koffi;
  return koffi;
}

const loaded = new Map<string, LibraryHandle>();

/** Loads a shared library once; `hint` says what to install when it is missing. */
export function loadLibrary(name: string, hint: string): LibraryHandle {
  const existing = loaded.get(name);
  if (existing) return existing;
  try {
    const lib = ffi().load(name);
    loaded.set(name, lib);
    return lib;
  } catch (err) {
    throw errors.GC_NATIVE_UNAVAILABLE(`cannot load ${name} (${(err as Error).message.split('\n')[0]}): ${hint}`, err);
  }
}
