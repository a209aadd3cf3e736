import { readFileSync, readdirSync } from 'node:fs';
const dir = process.argv[2];
const f = readdirSync(dir).find((x) => x.endsWith('.cpuprofile'));
const p = JSON.parse(readFileSync(dir + '/' + f));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const counts = new Map(); for (const s of p.samples) counts.set(s, (counts.get(s) ?? 0) + 1);
const byPkg = new Map(); const self = new Map(); let total = 0;
for (const [id, c] of counts) { const n = byId.get(id); let u = n.callFrame.url; let k;
  const m = u.match(/node_modules\/((@[^/]+\/)?[^/]+)/); if (m) k = m[1]; else if (u.includes('/work/main/src')) k = 'src:' + u.split('/work/main/src/')[1]; else if (u.startsWith('node:')) k = u; else k = n.callFrame.functionName || '(native)';
  byPkg.set(k, (byPkg.get(k) ?? 0) + c); total += c;
  const sk = `${n.callFrame.functionName || '(anon)'} ${u.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`; self.set(sk, (self.get(sk) ?? 0) + c); }
for (const [k, c] of [...byPkg.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((100 * c / total).toFixed(1).padStart(5), k);
console.log('---');
for (const [k, c] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log((100 * c / total).toFixed(1).padStart(5), k);
