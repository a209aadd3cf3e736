// Benchmark: what delivering one callback costs the service's thread, against what taking in the
// event that caused it costs. CPU of the main thread alone (its /proc schedstat), so neither the
// callback sender's thread nor the checkpointer's is counted, nor the receiver's process
// (test/receiver.ts, V3, every body signed) nor PostgreSQL's; beside it, the whole process's CPU
// (every thread of it, process.cpuUsage). BENCH_ESIMS eSIMs (2,000) bought,
// installed and attached as callback-lag.ts readies them; then BENCH_ROUNDS rounds (3) of:
//
//   ingest:  BENCH_BATCH attaches (4,000), each to the other country (one callback each), 4 loops;
//   thread:  the delivery worker drains them, requests on the sender thread (CALLBACK_SENDER_THREAD);
//   loop:    BENCH_BATCH more attaches, drained with the requests made on the event loop;
//   instant: BENCH_BATCH more, drained by a transport that answers 200 at once (no HTTP at all:
//            what claiming and recording cost);
//   delivery: BENCH_BATCH more, drained by the worker on the delivery thread
//            (CALLBACK_DELIVERY_THREAD): what is left on the service's thread is the thread's
//            start and the messages it exchanges with it.
//
// Each figure is µs of main-thread CPU per event or callback, with its wall time; the medians
// over the rounds close the run. The machine's load moves every figure: compare them within a run.
//
//   npx tsx bench/callback-cost.ts [sqlite|postgres]
//
// BENCH_PHASES="ingest,instant" runs only those phases; BENCH_PROFILE_DIR writes a CPU profile of
// each measured phase there (<phase>-<round>.cpuprofile; bench/profile-top.ts reads them).
// BENCH_AGAINST=<another checkout> (its node_modules in place) runs each drain phase a second
// time in every round, right after the first, with that checkout's delivery worker on the same
// service and database ("thread@against"): two builds compared in one process, alternated.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices } from '../src/main.js';
import { createSimulatedEvents } from '../src/network/simulated-events.js';
import { createCallbackWorker } from '../src/workers/callback-delivery.js';
import { instantTransport } from '../test/callbacks/fixtures.js';
import { startReceiverProcess } from '../test/callbacks/processes.js';
import { readyEsims } from './callbacks.js';
import { envInteger, quantile } from './figures.js';
import { startProfile } from './profile.js';
import { dropUnlessKept, scratchDatabase } from './scratch-database.js';

const COUNTRIES = ['FR', 'DE'] as const;
const ALL_PHASES = ['ingest', 'thread', 'loop', 'instant', 'delivery'] as const;
type Phase = (typeof ALL_PHASES)[number];
/** BENCH_PHASES="ingest,instant": only these phases, in their usual order (all five by default). */
const PHASES = ((): readonly Phase[] => {
  const asked = (process.env['BENCH_PHASES'] ?? '').split(',').filter((p) => p !== '');
  return asked.length === 0 ? ALL_PHASES : ALL_PHASES.filter((p) => asked.includes(p));
})();

/** Milliseconds the main thread has been on a CPU (Linux). */
const mainThreadMs = (): number =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;

async function main(): Promise<void> {
  const kind = process.argv[2] ?? 'sqlite';
  const esims = envInteger('BENCH_ESIMS', 2000);
  const batch = envInteger('BENCH_BATCH', 4000);
  const rounds = envInteger('BENCH_ROUNDS', 3);
  const db0 = await scratchDatabase(kind, 'cost');
  const receiver = await startReceiverProcess();
  const env = {
    DATABASE_URL: db0.url,
    DATA_DIR: db0.dir,
    LOG_LEVEL: 'silent',
    DEMO_ON_FIRST_START: 'false',
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('CALLBACK_')),
    ),
  };
  const config = loadConfig(env);
  const services = await openServices(config, { checkpointThread: kind === 'sqlite' });
  const { deps } = services;
  const log = { warn: (_: object, message: string) => console.log(`  warn: ${message}`) };
  try {
    const created = await createOrganisation(
      { db: deps.store.db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
      { name: 'Callback cost', callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' },
      (trx, org) =>
        openAccount(trx, { organisationId: org.id, balance: 1e12, at: deps.clock.now() }),
    );
    const iccids = await readyEsims(deps, created.apiKey, esims);
    const network = createSimulatedEvents(deps, deps.random, deps.network);
    const against = process.env['BENCH_AGAINST'];
    const other =
      against === undefined || against === ''
        ? undefined
        : {
            worker: (await import(`${against}/src/workers/callback-delivery.ts`)) as {
              createCallbackWorker: typeof createCallbackWorker;
            },
            fixtures: (await import(`${against}/test/callbacks/fixtures.ts`)) as {
              instantTransport: typeof instantTransport;
            },
          };
    // One delivery thread for the run, loaded and connected by the warm-up, drained in each
    // 'delivery' phase: a thread's start (its own JavaScript environment, through tsx here) is not
    // what a callback costs.
    const deliveryThread = PHASES.includes('delivery')
      ? createCallbackWorker({ ...deps, config: { ...config, callbackDeliveryThread: true } }, log)
      : undefined;
    const drain = async (phase: Phase, elsewhere = false): Promise<void> => {
      if (phase === 'delivery' && deliveryThread !== undefined && !elsewhere) {
        await deliveryThread.drain();
        return;
      }
      const build = elsewhere && other !== undefined ? other.worker : { createCallbackWorker };
      const transport =
        elsewhere && other !== undefined ? other.fixtures.instantTransport : instantTransport;
      const worker = build.createCallbackWorker(
        {
          ...deps,
          config: {
            ...config,
            callbackSenderThread: phase !== 'loop',
            callbackDeliveryThread: phase === 'delivery',
          },
        },
        log,
        phase === 'instant' ? { transport: transport() } : {},
      );
      await worker.drain();
      await worker.stop();
    };
    let next = iccids.length;
    const ingest = async (): Promise<void> => {
      let left = batch;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (left > 0) {
            left -= 1;
            const i = next;
            next += 1;
            const iccid = iccids[i % iccids.length] ?? '';
            const country = COUNTRIES[Math.floor(i / iccids.length) % 2] ?? 'FR';
            await network.attach(iccid, { country });
            await new Promise((resolve) => setImmediate(resolve));
          }
        }),
      );
    };
    /** Statements the store has run so far (the query-time metric's count). */
    const statements = async (): Promise<number> => {
      const text = (await deps.metrics?.render()) ?? '';
      const count = /^esim_db_query_duration_seconds_count(?:\{[^}]*\})? (\S+)$/m.exec(text);
      return Number(count?.[1] ?? Number.NaN);
    };
    /** Statements per event or callback of each measured phase, by its profile name. */
    const counted = new Map<string, number>();
    /**
     * µs of main-thread CPU, of wall time and of the whole process's CPU (every thread of it: the
     * delivery and sender threads too) per event or callback; with BENCH_PROFILE_DIR, a CPU
     * profile of the work (<phase>-<round>.cpuprofile).
     */
    const measure = async (
      work: () => Promise<void>,
      name: string,
    ): Promise<[number, number, number]> => {
      const before = await statements();
      const profile = await startProfile();
      const cpu = mainThreadMs();
      const all = process.cpuUsage();
      const wall = performance.now();
      await work();
      const used = process.cpuUsage(all);
      const figures: [number, number, number] = [
        ((mainThreadMs() - cpu) * 1000) / batch,
        ((performance.now() - wall) * 1000) / batch,
        (used.user + used.system) / batch,
      ];
      await profile?.stop(name);
      counted.set(name, ((await statements()) - before) / batch);
      return figures;
    };
    await drain('thread'); // the first attachments' callbacks
    await ingest(); // warm-up
    await drain(deliveryThread === undefined ? 'thread' : 'delivery');
    console.log(
      `callback-cost on ${kind}: ${iccids.length} eSIMs, ${batch} events a phase, ${rounds} rounds`,
    );
    const figures = new Map<string, number[]>();
    for (let round = 0; round < rounds; round += 1) {
      const line: string[] = [];
      const record = (label: string, [cpu, wall, whole]: [number, number, number]): void => {
        figures.set(label, [...(figures.get(label) ?? []), cpu]);
        figures.set(`${label}@process`, [...(figures.get(`${label}@process`) ?? []), whole]);
        const per = counted.get(`${label}-${round + 1}`) ?? Number.NaN;
        line.push(
          `${label} ${cpu.toFixed(0)} µs (process ${whole.toFixed(0)}, wall ${wall.toFixed(0)}, ${per.toFixed(2)} statements)`,
        );
      };
      for (const phase of PHASES) {
        if (phase === 'ingest') {
          record(phase, await measure(ingest, `ingest-${round + 1}`));
          continue;
        }
        // The first drain takes what the measured ingest made; the others their own.
        const drainsIngest =
          PHASES.includes('ingest') && phase === PHASES.find((p) => p !== 'ingest');
        if (!drainsIngest) await ingest();
        record(phase, await measure(() => drain(phase), `${phase}-${round + 1}`));
        if (other === undefined) continue;
        await ingest();
        const label = `${phase}@against`;
        record(label, await measure(() => drain(phase, true), `${label}-${round + 1}`));
      }
      console.log(`round ${round + 1}: ${line.join('; ')}`);
    }
    const med = (label: string) => quantile(figures.get(label) ?? [], 0.5);
    console.log(
      `| main-thread CPU per event or callback, median | ingest ${med('ingest').toFixed(0)} µs; ` +
        `delivery, sender thread ${med('thread').toFixed(0)} µs, on the loop ${med('loop').toFixed(0)} µs, ` +
        `without HTTP ${med('instant').toFixed(0)} µs, on the delivery thread ${med('delivery').toFixed(0)} µs |`,
    );
    console.log(
      `| the whole process's CPU (every thread), median | ingest ${med('ingest@process').toFixed(0)} µs; ` +
        `delivery, sender thread ${med('thread@process').toFixed(0)} µs, on the loop ${med('loop@process').toFixed(0)} µs, ` +
        `without HTTP ${med('instant@process').toFixed(0)} µs, on the delivery thread ${med('delivery@process').toFixed(0)} µs |`,
    );
    if (other !== undefined) {
      console.log(
        `| the same with ${against ?? ''} | delivery, sender thread ${med('thread@against').toFixed(0)} µs, ` +
          `on the loop ${med('loop@against').toFixed(0)} µs, without HTTP ${med('instant@against').toFixed(0)} µs |`,
      );
    }
    await deliveryThread?.stop();
  } finally {
    await services.close();
    await receiver.kill('SIGTERM');
    const kept = await dropUnlessKept(db0);
    if (kept !== undefined) console.log(kept);
  }
}

await main();
