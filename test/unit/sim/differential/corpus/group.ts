// Snippets of one documented page: each named `page: what it shows`.

import type { Snippet } from '../snippet.js';

export function onPage(page: string, entries: readonly (readonly [string, string] | Snippet)[]): Snippet[] {
  return entries.map((e) => (Array.isArray(e) ? { name: `${page}: ${e[0]}`, script: e[1] as string, page } : (e as Snippet)));
}
