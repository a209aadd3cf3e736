const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const t0 = performance.now(); const c0 = cpu();
const m = await import('./dist/esim.js');
const c1 = cpu(); const t1 = performance.now();
console.log(`bundle load: cpu ${(c1 - c0).toFixed(0)} ms, wall ${(t1 - t0).toFixed(0)} ms, node boot cpu before ${c0.toFixed(0)}, code cache ${m.codeCache}`);
const { mkdtempSync } = await import('node:fs');
const dir = mkdtempSync('/tmp/h41j-data-');
process.env.DATA_DIR = dir; process.env.PORT = String(20000 + Math.floor(Math.random() * 20000)); process.env.LOG_LEVEL = 'warn';
const done = m.main(['serve']);
for (;;) {
  try { const r = await fetch(`http://127.0.0.1:${process.env.PORT}/readyz`); await r.arrayBuffer(); if (r.status === 200) break; } catch {}
  await new Promise((r) => setTimeout(r, 1));
}
const c2 = cpu(); const t2 = performance.now();
console.log(`serve to ready: cpu ${(c2 - c1).toFixed(0)} ms, wall ${(t2 - t1).toFixed(0)} ms`);
process.kill(process.pid, 'SIGTERM');
await done;
