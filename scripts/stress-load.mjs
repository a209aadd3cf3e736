// Keeps `workers` cores busy until it is killed: the load of TEST_STRESS=1 (scripts/test.mjs),
// so the suite can be run as on a crowded CI machine. Each worker spins on a tight loop of
// hashing, yielding now and then so a kill is handled at once.
import { createHash } from 'node:crypto';
import { Worker, isMainThread, workerData } from 'node:worker_threads';

if (isMainThread) {
  const workers = Number(process.argv[2] ?? '2');
  for (let i = 0; i < workers; i += 1) {
    new Worker(new URL(import.meta.url), { workerData: i });
  }
} else {
  let buffer = Buffer.from(String(workerData));
  for (;;) buffer = createHash('sha256').update(buffer).digest();
}
