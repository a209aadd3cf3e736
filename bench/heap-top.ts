// Prints what a heap snapshot (.heapsnapshot, as BENCH_HEAP_SNAPSHOT writes one) holds: the
// constructors with the most bytes of their own (self size), and how many objects of each.
//   npx tsx bench/heap-top.ts <file.heapsnapshot> [rows]
import { readFileSync } from 'node:fs';

const [file, rowsArg] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: npx tsx bench/heap-top.ts <file.heapsnapshot> [rows]');
  process.exit(2);
}
const rows = Number(rowsArg ?? '25');
const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
};
const fields = snapshot.snapshot.meta.node_fields;
const types = snapshot.snapshot.meta.node_types[0];
const width = fields.length;
const at = (name: string): number => fields.indexOf(name);
const [typeAt, nameAt, sizeAt] = [at('type'), at('name'), at('self_size')];
const totals = new Map<string, { bytes: number; count: number }>();
let all = 0;
for (let i = 0; i < snapshot.nodes.length; i += width) {
  const type = types[snapshot.nodes[i + typeAt] ?? 0] ?? '?';
  const name = snapshot.strings[snapshot.nodes[i + nameAt] ?? 0] ?? '?';
  const bytes = snapshot.nodes[i + sizeAt] ?? 0;
  // Strings and code are grouped by their type; objects by their constructor's name.
  const key = type === 'object' || type === 'closure' ? `${type} ${name}` : `(${type})`;
  const entry = totals.get(key) ?? { bytes: 0, count: 0 };
  entry.bytes += bytes;
  entry.count += 1;
  totals.set(key, entry);
  all += bytes;
}
console.log(`${(all / 1048576).toFixed(1)} MiB in ${snapshot.nodes.length / width} objects\n`);
for (const [key, { bytes, count }] of [...totals]
  .sort((a, b) => b[1].bytes - a[1].bytes)
  .slice(0, rows)) {
  console.log(
    `${(bytes / 1048576).toFixed(1).padStart(7)} MiB ${String(count).padStart(9)}  ${key.slice(0, 100)}`,
  );
}
