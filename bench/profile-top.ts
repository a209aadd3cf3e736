// Prints where a CPU profile (.cpuprofile, as BENCH_PROFILE_DIR writes them) spent its time: the
// functions with the most self time, and the files with the most time of their own.
//   npx tsx bench/profile-top.ts <file.cpuprofile> [rows]
// With BENCH_PROFILE_UNDER="name=part,part;name=part" it also prints, for each name, the share of
// samples whose stack passes through a file whose path contains one of its parts (time spent
// under that code, callees included), and the share under none of them.
import { readFileSync } from 'node:fs';

interface Node {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
  readonly hitCount?: number;
  readonly children?: readonly number[];
}

const [file, rowsArg] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: npx tsx bench/profile-top.ts <file.cpuprofile> [rows]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as {
  nodes: Node[];
  samples?: number[];
  timeDeltas?: number[];
};
// BENCH_PROFILE_WINDOW="from,to": only the samples from `from` to `to` seconds after the
// profile began (a server's load, without its start and shutdown), counted again per node.
const window = (process.env['BENCH_PROFILE_WINDOW'] ?? '').split(',').map(Number);
if (window.length === 2 && profile.samples !== undefined && profile.timeDeltas !== undefined) {
  const [from = 0, to = Infinity] = window;
  const hits = new Map<number, number>();
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += (profile.timeDeltas?.[i] ?? 0) / 1e6;
    if (at >= from && at <= to) hits.set(id, (hits.get(id) ?? 0) + 1);
  });
  profile.nodes = profile.nodes.map((node) => ({ ...node, hitCount: hits.get(node.id) ?? 0 }));
}
const rows = Number(rowsArg ?? '25');
const total = profile.nodes.reduce((n, node) => n + (node.hitCount ?? 0), 0);
const where = (url: string): string =>
  url === ''
    ? '(native)'
    : url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|src|bench)\//, '$1/');
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
for (const node of profile.nodes) {
  const hits = node.hitCount ?? 0;
  if (hits === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const name = `${functionName === '' ? '(anonymous)' : functionName} ${where(url)}:${lineNumber + 1}`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
  const place = where(url).replace(/^(node_modules\/(@[^/]+\/)?[^/]+).*$/, '$1');
  byFile.set(place, (byFile.get(place) ?? 0) + hits);
}
const top = (map: Map<string, number>): string[] =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([name, hits]) => `${((hits / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
console.log(`${total} samples\n\nself time by function:`);
console.log(top(byFunction).join('\n'));
console.log('\nself time by file (node_modules by package):');
console.log(top(byFile).join('\n'));

const under = (process.env['BENCH_PROFILE_UNDER'] ?? '')
  .split(';')
  .filter((group) => group.includes('='))
  .map((group) => {
    const [name = '', parts = ''] = group.split('=');
    return { name, parts: parts.split(',').filter((part) => part !== '') };
  });
if (under.length > 0) {
  // Each node's first matching group is inherited by its callees; the first group on the stack
  // (nearest the root) wins.
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const sums = new Map<string, number>();
  const walk = (id: number, group: string | undefined): void => {
    const node = byId.get(id);
    if (node === undefined) return;
    const own =
      group ?? under.find((g) => g.parts.some((part) => node.callFrame.url.includes(part)))?.name;
    const key = own ?? '(none of them)';
    sums.set(key, (sums.get(key) ?? 0) + (node.hitCount ?? 0));
    for (const child of node.children ?? []) walk(child, own);
  };
  const root = profile.nodes[0];
  if (root !== undefined) walk(root.id, undefined);
  console.log('\ntime under (callees included):');
  console.log(top(sums).join('\n'));
}
