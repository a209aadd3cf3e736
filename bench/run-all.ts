// `npm run bench`: every benchmark, one after the other, each printing its figures and
// PASS/MISS against its targets. Benchmarks are measurements, not tests: the exit code is 0
// unless one fails to run. Baselines are recorded in bench/baselines.md.
import { callbacksSecondsFromEnv, runCallbacksBenchmark } from './callbacks.js';
import { benchOptionsFromEnv, runCatalogueBenchmark } from './catalogue.js';
import { ordersBenchOptionsFromEnv, runOrdersBenchmark } from './orders.js';
import { readsOptionsFromEnv, runReadsBenchmark } from './reads.js';
import { modesOptionsFromEnv, runModesBenchmark } from './modes.js';
import { runStartBenchmark } from './start.js';
import { runVersionCpuBenchmark, versionCpuOptionsFromEnv } from './version-cpu.js';

interface Benchmark {
  readonly name: string;
  run(print: (line: string) => void): Promise<boolean>;
}

const BENCHMARKS: readonly Benchmark[] = [
  { name: 'catalogue', run: (print) => runCatalogueBenchmark(benchOptionsFromEnv(print)) },
  { name: 'reads', run: (print) => runReadsBenchmark(readsOptionsFromEnv(print)) },
  { name: 'callbacks', run: (print) => runCallbacksBenchmark(print, callbacksSecondsFromEnv()) },
  { name: 'orders', run: (print) => runOrdersBenchmark(ordersBenchOptionsFromEnv(print)) },
  { name: 'versions', run: (print) => runVersionCpuBenchmark(versionCpuOptionsFromEnv(print)) },
  { name: 'start', run: (print) => runStartBenchmark(print) },
  { name: 'modes', run: (print) => runModesBenchmark(modesOptionsFromEnv(print)) },
];

const only = process.argv.slice(2);
const print = (line: string): void => console.log(line);
const summary: string[] = [];
for (const bench of BENCHMARKS) {
  if (only.length > 0 && !only.includes(bench.name)) continue;
  const met = await bench.run(print);
  summary.push(`${bench.name}: ${met ? 'targets met' : 'targets missed'}`);
  print('');
}
for (const line of summary) print(line);
