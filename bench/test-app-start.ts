// What one test app costs to start and close (test/harness.ts startTestApp), on each database:
// the processor time of this process and the wall time, per app, after the first (which makes
// the process's template database and compiles the route schemas). Not part of `npm run bench`:
// it measures the test suite's set-up, not the service (bench/test-suite.md).
//
//   npx tsx bench/test-app-start.ts [apps per database, default 10]
import { DATABASES, startTestApp } from '../test/harness.js';

const apps = Number(process.argv[2] ?? 10);
const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const processorMs = (): number => {
  const used = process.cpuUsage();
  return (used.user + used.system) / 1000;
};

for (const kind of DATABASES) {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i <= apps; i += 1) {
    const [w, c] = [performance.now(), processorMs()];
    const t = await startTestApp(kind);
    await t.close();
    // The first app of the process makes its template and compiles the schemas.
    if (i === 0) {
      console.log(`${kind}: first app ${Math.round(performance.now() - w)} ms`);
      continue;
    }
    wall.push(performance.now() - w);
    cpu.push(processorMs() - c);
  }
  console.log(
    `${kind}: ${apps} apps, median per app ${Math.round(median(wall))} ms wall, ` +
      `${Math.round(median(cpu))} ms processor (this process)`,
  );
}
process.exit(0);
