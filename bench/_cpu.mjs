import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
const child = spawn(process.execPath, ['--import', 'tsx', 'bench/catalogue-server.ts'], { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
const [line] = await once(createInterface({ input: child.stdout }), 'line');
const r = JSON.parse(line);
const cpu = () => { const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const path = process.env.BPATH ?? '/v2.1/catalogue?countries=FR&perPage=50';
async function run(url, headers) {
  const c0 = cpu();
  const res = await autocannon({ url, headers, connections: 50, duration: Number(process.env.D ?? 4) });
  const ms = cpu() - c0;
  return { rps: res.requests.average, us: (ms * 1000) / res.requests.total, p99: res.latency.p99 };
}
await run(r.appUrl + path, { 'x-api-key': r.apiKey });
await run(r.bareUrl + path, {});
const a = await run(r.appUrl + path, { 'x-api-key': r.apiKey });
const b = await run(r.bareUrl + path, {});
console.log('app', a, '\nbare', b, '\ncpu ratio', (b.us / a.us).toFixed(2), 'rps ratio', (a.rps / b.rps).toFixed(2));
child.stdin.end();
await once(child, 'exit');
