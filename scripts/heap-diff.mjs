#!/usr/bin/env node
/**
 * Compares two V8 heap snapshots (e.g. from `node --heapsnapshot-signal=SIGUSR2`, taken early and
 * late in a soak): self size and count per constructor, the largest growths first, and for the
 * top growers what holds them (the retaining constructor and edge name).
 *
 *   node --max-old-space-size=4096 scripts/heap-diff.mjs early.heapsnapshot late.heapsnapshot [top]
 *
 * One snapshot alone prints its own largest constructors.
 */
import { readFileSync } from 'node:fs';

function load(path) {
  const snapshot = JSON.parse(readFileSync(path, 'utf8'));
  const meta = snapshot.snapshot.meta;
  const nodeFields = meta.node_fields;
  const edgeFields = meta.edge_fields;
  const nodeTypes = meta.node_types[nodeFields.indexOf('type')];
  const edgeTypes = meta.edge_types[edgeFields.indexOf('type')];
  return {
    nodes: snapshot.nodes,
    edges: snapshot.edges,
    strings: snapshot.strings,
    nodeWidth: nodeFields.length,
    edgeWidth: edgeFields.length,
    at: {
      type: nodeFields.indexOf('type'),
      name: nodeFields.indexOf('name'),
      size: nodeFields.indexOf('self_size'),
      edgeCount: nodeFields.indexOf('edge_count'),
      edgeType: edgeFields.indexOf('type'),
      edgeName: edgeFields.indexOf('name_or_index'),
      toNode: edgeFields.indexOf('to_node'),
    },
    nodeTypes,
    edgeTypes,
  };
}

/** The grouping key of a node: its constructor (objects) or its kind (strings, code, arrays...). */
function keyOf(heap, index) {
  const type = heap.nodeTypes[heap.nodes[index + heap.at.type]];
  if (type === 'object' || type === 'closure' || type === 'native')
    return `${type}:${heap.strings[heap.nodes[index + heap.at.name]]}`;
  if (type === 'hidden' || type === 'array' || type === 'object shape')
    return `${type}:${heap.strings[heap.nodes[index + heap.at.name]]}`.slice(0, 80);
  return type;
}

function aggregate(heap) {
  const byKey = new Map();
  for (let i = 0; i < heap.nodes.length; i += heap.nodeWidth) {
    const key = keyOf(heap, i);
    const entry = byKey.get(key) ?? { size: 0, count: 0 };
    entry.size += heap.nodes[i + heap.at.size];
    entry.count++;
    byKey.set(key, entry);
  }
  return byKey;
}

/** For nodes grouped under `key`: which (retainer constructor, edge name) holds them, by size. */
function retainers(heap, key, limit) {
  const held = new Map();
  let edgeIndex = 0;
  for (let i = 0; i < heap.nodes.length; i += heap.nodeWidth) {
    const edgeCount = heap.nodes[i + heap.at.edgeCount];
    const from = keyOf(heap, i);
    for (let e = 0; e < edgeCount; e++, edgeIndex += heap.edgeWidth) {
      const edgeType = heap.edgeTypes[heap.edges[edgeIndex + heap.at.edgeType]];
      if (edgeType === 'weak') continue;
      const to = heap.edges[edgeIndex + heap.at.toNode];
      if (keyOf(heap, to) !== key) continue;
      const nameOrIndex = heap.edges[edgeIndex + heap.at.edgeName];
      const edgeName =
        edgeType === 'element' || edgeType === 'hidden' ? `[${edgeType}]` : heap.strings[nameOrIndex];
      const via = `${from} .${edgeName}`;
      const entry = held.get(via) ?? { size: 0, count: 0 };
      entry.size += heap.nodes[to + heap.at.size];
      entry.count++;
      held.set(via, entry);
    }
  }
  return [...held.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, limit);
}

const mib = (bytes) => (bytes / 2 ** 20).toFixed(2);

const [earlyPath, latePath, topArg] = process.argv.slice(2);
if (!earlyPath) {
  console.error('usage: heap-diff.mjs early.heapsnapshot [late.heapsnapshot] [top]');
  process.exit(2);
}
const top = Number(topArg ?? 30);
const early = load(earlyPath);
const earlyBy = aggregate(early);
if (!latePath) {
  const rows = [...earlyBy.entries()].sort((a, b) => b[1].size - a[1].size).slice(0, top);
  for (const [key, { size, count }] of rows)
    console.log(`${mib(size).padStart(9)} MiB ${String(count).padStart(9)}  ${key}`);
  process.exit(0);
}
const late = load(latePath);
const lateBy = aggregate(late);
const total = (by) => [...by.values()].reduce((s, e) => s + e.size, 0);
console.log(`total self size: ${mib(total(earlyBy))} MiB -> ${mib(total(lateBy))} MiB`);
const growth = [...lateBy.entries()]
  .map(([key, { size, count }]) => {
    const before = earlyBy.get(key) ?? { size: 0, count: 0 };
    return { key, size: size - before.size, count: count - before.count, lateSize: size };
  })
  .sort((a, b) => b.size - a.size)
  .slice(0, top);
console.log('  growth MiB   growth n   late MiB  constructor');
for (const g of growth)
  console.log(
    `${mib(g.size).padStart(12)} ${String(g.count).padStart(10)} ${mib(g.lateSize).padStart(10)}  ${g.key}`,
  );
for (const g of growth.slice(0, Number(process.env.HEAP_DIFF_RETAINERS ?? 8))) {
  console.log(`\nwhat holds ${g.key} (late snapshot):`);
  for (const [via, { size, count }] of retainers(late, g.key, 6))
    console.log(`  ${mib(size).padStart(9)} MiB ${String(count).padStart(9)}  ${via}`);
}
