// Who holds the heap: a V8 heap snapshot as a tree (each object under the holder nearest the GC roots), and
// what each kind of holder keeps alive through each of its fields, summed over all its instances, largest
// first. heap-breakdown.ts says which kinds fill the heap; this says which structures keep them (the run
// reports, the machines, the loggers). Rows nest (a Map row includes its entries rows): read them as "held
// through". Streams the file into typed arrays.
// Usage: tsx bench/heap-retainers.ts FILE [TOP]

import { createReadStream } from 'node:fs';
import { SnapshotStrings } from './heap-strings.js';

interface Meta {
  node_fields: string[];
  node_types: [string[]];
  edge_fields: string[];
  edge_types: [string[]];
}

interface Snapshot {
  meta: Meta;
  nodes: Uint32Array;
  edges: Uint32Array;
  strings: string[];
}

/** Reads the snapshot's nodes, edges and (the heads of) its strings. */
async function readSnapshot(file: string): Promise<Snapshot> {
  let stage: 'meta' | 'seek' | 'numbers' | 'strings' | 'done' = 'meta';
  let head = '';
  let meta: Meta | undefined;
  let counts = { nodes: 0, edges: 0 };
  let target: Uint32Array = new Uint32Array(0);
  let nodes: Uint32Array = new Uint32Array(0);
  let edges: Uint32Array = new Uint32Array(0);
  let filled = 0;
  let seeking = '"nodes":[';
  let number = '';
  let skipField = -1;
  let fieldCount = 1;
  const names = new SnapshotStrings();
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    let text = chunk as string;
    while (text.length > 0 && stage !== 'done') {
      if (stage === 'meta' || stage === 'seek') {
        text = head + text;
        const at = text.indexOf(seeking);
        if (at < 0) {
          head = stage === 'meta' ? text : text.slice(-seeking.length);
          text = '';
          break;
        }
        if (stage === 'meta') {
          const parsed = JSON.parse(`${text.slice(0, at).replace(/,\s*$/, '')}}`) as {
            snapshot: { meta: Meta; node_count: number; edge_count: number };
          };
          meta = parsed.snapshot.meta;
          counts = { nodes: parsed.snapshot.node_count, edges: parsed.snapshot.edge_count };
          nodes = new Uint32Array(counts.nodes * meta.node_fields.length);
          edges = new Uint32Array(counts.edges * meta.edge_fields.length);
        }
        head = '';
        text = text.slice(at + seeking.length);
        if (seeking === '"strings":[') stage = 'strings';
        else {
          stage = 'numbers';
          target = seeking === '"nodes":[' ? nodes : edges;
          fieldCount = seeking === '"nodes":[' ? (meta?.node_fields.length ?? 1) : 1;
          // The id field can pass 2^32; it is not needed.
          skipField = seeking === '"nodes":[' ? (meta?.node_fields.indexOf('id') ?? -1) : -1;
          filled = 0;
        }
        continue;
      }
      if (stage === 'numbers') {
        let i = 0;
        for (; i < text.length; i++) {
          const c = text.charCodeAt(i);
          if (c >= 48 && c <= 57) {
            number += text[i];
            continue;
          }
          if (number !== '') {
            target[filled] = filled % fieldCount === skipField ? 0 : Number(number);
            filled++;
            number = '';
          }
          if (c === 93) break;
        }
        if (i >= text.length) {
          text = '';
          break;
        }
        text = text.slice(i + 1);
        stage = 'seek';
        seeking = target === nodes ? '"edges":[' : '"strings":[';
        continue;
      }
      // strings
      if (names.feed(text)) stage = 'done';
      text = '';
    }
    if (stage === 'done') break;
  }
  if (!meta) throw new Error(`${file}: no snapshot meta`);
  return { meta, nodes, edges, strings: names.strings };
}

/**
 * A spanning tree of the heap from its root, breadth first over strong edges (each object under the holder
 * nearest the GC roots), and each object's subtree size in it: what it keeps alive through it. Then the
 * subtree sizes summed per (holder kind, edge, object kind): at 10,000 nodes a per-node structure shows as one
 * large row, e.g. `RunReports.#open -> Map`.
 */
export function heldBy(s: Snapshot): { total: number; rows: { path: string; count: number; bytes: number }[] } {
  const nf = s.meta.node_fields.length;
  const ef = s.meta.edge_fields.length;
  const [TYPE, NAME, SIZE, EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) => s.meta.node_fields.indexOf(f)) as [
    number,
    number,
    number,
    number,
  ];
  const [ETYPE, ENAME, ETO] = ['type', 'name_or_index', 'to_node'].map((f) => s.meta.edge_fields.indexOf(f)) as [number, number, number];
  const nodeTypes = s.meta.node_types[0];
  const edgeTypes = s.meta.edge_types[0];
  const count = s.nodes.length / nf;
  const firstEdge = new Uint32Array(count + 1);
  for (let n = 0; n < count; n++) firstEdge[n + 1] = (firstEdge[n] as number) + (s.nodes[n * nf + EDGES] as number);
  const parent = new Int32Array(count).fill(-1);
  const via = new Int32Array(count).fill(-1);
  const order = new Uint32Array(count);
  let head = 0;
  let tail = 0;
  order[tail++] = 0;
  parent[0] = 0;
  while (head < tail) {
    const n = order[head++] as number;
    for (let e = firstEdge[n] as number; e < (firstEdge[n + 1] as number); e++) {
      const type = edgeTypes[s.edges[e * ef + ETYPE] as number];
      if (type === 'weak' || type === 'shortcut') continue;
      const to = (s.edges[e * ef + ETO] as number) / nf;
      if (parent[to] !== -1) continue;
      parent[to] = n;
      via[to] = e;
      order[tail++] = to;
    }
  }
  const subtree = new Float64Array(count);
  let total = 0;
  for (let n = 0; n < count; n++) {
    subtree[n] = s.nodes[n * nf + SIZE] as number;
    total += subtree[n] as number;
  }
  for (let i = tail - 1; i > 0; i--) {
    const n = order[i] as number;
    const up = parent[n] as number;
    subtree[up] = (subtree[up] as number) + (subtree[n] as number);
  }
  const kind = (n: number): string => {
    const type = nodeTypes[s.nodes[n * nf + TYPE] as number] ?? '?';
    const name = s.strings[s.nodes[n * nf + NAME] as number] ?? '?';
    if (type === 'object' || type === 'native') return name;
    if (type === 'closure') return `${name || 'anonymous'}()`;
    if (type === 'hidden' || type === 'synthetic') return `(${name})`;
    return `(${type})`;
  };
  const edgeName = (e: number): string => {
    const type = edgeTypes[s.edges[e * ef + ETYPE] as number];
    const name = s.edges[e * ef + ENAME] as number;
    return type === 'element' || type === 'hidden' ? '[]' : (s.strings[name] ?? '?');
  };
  const sums = new Map<string, { count: number; bytes: number }>();
  for (let i = 1; i < tail; i++) {
    const n = order[i] as number;
    const path = `${kind(parent[n] as number)}.${edgeName(via[n] as number)} -> ${kind(n)}`;
    const row = sums.get(path) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += subtree[n] as number;
    sums.set(path, row);
  }
  return {
    total,
    rows: [...sums].map(([path, r]) => ({ path, ...r })).sort((a, b) => b.bytes - a.bytes),
  };
}

if (process.argv[1]?.endsWith('heap-retainers.ts')) {
  const [file, top] = process.argv.slice(2);
  if (!file) throw new Error('usage: tsx bench/heap-retainers.ts FILE [TOP]');
  const { total, rows } = heldBy(await readSnapshot(file));
  const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;
  console.log(`total self size ${mib(total)}`);
  for (const r of rows.slice(0, Number(top ?? 40)))
    console.log(`${mib(r.bytes).padStart(10)} ${r.count.toLocaleString('en').padStart(10)}  ${r.path}`);
}
