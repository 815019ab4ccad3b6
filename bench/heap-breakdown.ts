// A V8 heap snapshot broken down by constructor: self sizes summed per object kind, largest first. Streams the
// file (a 10,000-node daemon's snapshot is larger than the longest string V8 can hold, so JSON.parse is out).
// The format is V8's (snapshot.meta names the node fields; "nodes" is a flat int array, "strings" the names).
// Usage: tsx bench/heap-breakdown.ts FILE [TOP]

import { createReadStream } from 'node:fs';
import { SnapshotStrings } from './heap-strings.js';

export interface HeapRow {
  kind: string;
  count: number;
  bytes: number;
}

/** Reads `file` once: the node fields from the meta, the nodes' (type, name, self size), then the strings. */
export async function heapBreakdown(file: string): Promise<{ total: number; rows: HeapRow[] }> {
  let stage: 'meta' | 'nodes' | 'skip' | 'strings' | 'done' = 'meta';
  let meta = '';
  let fields: string[] = [];
  let types: string[] = [];
  let number = '';
  let field = 0;
  let nodeType = 0;
  let nodeName = 0;
  // Per (type, name): count and bytes, keyed `${type} ${name}` until the strings are known.
  const sums = new Map<number, { type: number; name: number; count: number; bytes: number }>();
  const names = new SnapshotStrings();
  let tail = '';

  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    let text = chunk as string;
    if (stage === 'meta' || stage === 'skip') {
      text = tail + text;
      const marker = stage === 'meta' ? '"nodes":[' : '"strings":[';
      const at = text.indexOf(marker);
      if (at < 0) {
        if (stage === 'meta') meta += text.slice(0, Math.max(0, text.length - marker.length));
        tail = text.slice(-marker.length);
        continue;
      }
      if (stage === 'meta') {
        meta += text.slice(0, at);
        const parsed = JSON.parse(`${meta.replace(/,\s*$/, '')}}`) as {
          snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
        };
        fields = parsed.snapshot.meta.node_fields;
        types = parsed.snapshot.meta.node_types[0];
        stage = 'nodes';
      } else stage = 'strings';
      tail = '';
      text = text.slice(at + marker.length);
    }
    if (stage === 'nodes') {
      const sizeAt = fields.indexOf('self_size');
      const nameAt = fields.indexOf('name');
      const typeAt = fields.indexOf('type');
      let i = 0;
      for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c >= 48 && c <= 57) {
          number += text[i];
          continue;
        }
        if (number !== '') {
          const value = Number(number);
          number = '';
          if (field === typeAt) nodeType = value;
          else if (field === nameAt) nodeName = value;
          else if (field === sizeAt) {
            // Objects by constructor name; everything else by its type alone.
            const byName = types[nodeType] === 'object' || types[nodeType] === 'native';
            const key = byName ? nodeType * 1e9 + nodeName : nodeType * 1e9 - 1;
            const row = sums.get(key) ?? { type: nodeType, name: byName ? nodeName : -1, count: 0, bytes: 0 };
            row.count++;
            row.bytes += value;
            sums.set(key, row);
          }
          field = (field + 1) % fields.length;
        }
        if (c === 93) break; // ']'
      }
      if (i < text.length) {
        stage = 'skip';
        tail = '';
        text = text.slice(i + 1);
        const at = text.indexOf('"strings":[');
        if (at < 0) {
          tail = text.slice(-12);
          continue;
        }
        stage = 'strings';
        text = text.slice(at + '"strings":['.length);
      } else continue;
    }
    if (stage === 'strings' && names.feed(text)) stage = 'done';
    if (stage === 'done') break;
  }
  let total = 0;
  const rows: HeapRow[] = [];
  for (const row of sums.values()) {
    total += row.bytes;
    const type = types[row.type] ?? '?';
    rows.push({
      kind: row.name >= 0 ? `${names.strings[row.name] ?? '?'}${type === 'native' ? ' (native)' : ''}` : `(${type})`,
      count: row.count,
      bytes: row.bytes,
    });
  }
  // Same-named kinds of different types, merged.
  const merged = new Map<string, HeapRow>();
  for (const r of rows) {
    const m = merged.get(r.kind) ?? { kind: r.kind, count: 0, bytes: 0 };
    m.count += r.count;
    m.bytes += r.bytes;
    merged.set(r.kind, m);
  }
  return { total, rows: [...merged.values()].sort((a, b) => b.bytes - a.bytes) };
}

/** "  123.4 MiB  45.6%  1,234,567  Object" lines, the largest `top` kinds. */
export function showBreakdown(b: { total: number; rows: HeapRow[] }, top = 25): string[] {
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  return [
    `total self size ${mib(b.total)}`,
    ...b.rows
      .slice(0, top)
      .map(
        (r) =>
          `${mib(r.bytes).padStart(11)} ${((100 * r.bytes) / b.total).toFixed(1).padStart(5)}% ${r.count.toLocaleString('en').padStart(11)}  ${r.kind}`,
      ),
  ];
}

if (process.argv[1]?.endsWith('heap-breakdown.ts')) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/heap-breakdown.ts FILE [TOP]');
  for (const line of showBreakdown(await heapBreakdown(file), Number(top ?? 25))) console.log(line);
}
