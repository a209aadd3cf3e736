// The delivery worker of bench/callback-lag.ts in a second process (BENCH_DELIVERY=process), as a
// second instance on the same database runs it: its own connection, its own event loop. The
// configuration comes as JSON in BENCH_WORKER_ENV; it tells the parent 'ready' once delivering,
// and stops (handing back what it has not sent) when the parent sends any message.
import { loadConfig } from '../src/config.js';
import { openServices } from '../src/main.js';
import { createCallbackWorker } from '../src/workers/callback-delivery.js';

const config = loadConfig(JSON.parse(process.env['BENCH_WORKER_ENV'] ?? '{}'));
const services = await openServices(config);
const worker = createCallbackWorker(services.deps, {
  warn: (_details, message) => console.error(`delivery process: ${message}`),
});
worker.start();
process.send?.('ready');
process.on('message', () => {
  void (async () => {
    await worker.stop();
    await services.close();
    process.exit(0);
  })();
});
