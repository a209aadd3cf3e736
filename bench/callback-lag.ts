// Benchmark: do usage callbacks keep pace with the network events that cause them, and what does
// delivering them cost ingestion? One service process (as `esim serve` runs it: the delivery
// worker on the same event loop as ingestion), a V3 receiver in its own process (test/receiver.ts),
// ESIMS eSIMs installed and attached. Every event is an attach to the other of two countries, so
// each one causes exactly one callback (CountryChange).
//
//   (1) ingestion alone: events as fast as BENCH_INGEST_LOOPS loops make them, the delivery worker off;
//   (2) the same with the delivery worker on, and the callbacks it delivered meanwhile;
//   (3) events paced at RATE per second for the run, the worker off, then on: the time each event
//       takes to be taken in, and with the worker on the delay from each event's callback being
//       written to its delivery (delivered_at - created_at), at the median, p99 and worst, and the
//       backlog when the events stop.
// Every event is awaited and then the loop yields to the event loop (setImmediate), as a service
// taking each event from a socket does: without it, awaits on the synchronous SQLite driver chain
// as microtasks and no socket (the receiver's answers) is read until the phase ends.
// Targets (issue: flat cost as an organisation grows): at 1,000 events/s across 20,000 eSIMs the
// p99 delay under 1 s, and ingestion with delivery on at least 90 % of its rate with it off.
//
//   npx tsx bench/callback-lag.ts [sqlite|postgres]     (BENCH_DURATION seconds per phase, 10;
//   BENCH_RATE events/s, 1000; BENCH_ESIMS, 20000; BENCH_INGEST_LOOPS, the events under way at
//   once, 4 (PostgreSQL waits on the network for each, so it needs more to reach the rate);
//   BENCH_DELIVERY=process: the delivery worker in
//   a second process on the same database, as a second instance runs it, callback-lag-worker.ts;
//   BENCH_KEEP_DATABASE=1 keeps the database and prints where it is; BENCH_ROUNDS rounds of
//   phases 1 and 2, 2; BENCH_SENDER=both: phase 2 with the sender thread on and off, alternated;
//   BENCH_DELIVERY_THREAD=both: phase 2 (and 3) with the whole worker on the delivery thread and
//   on the event loop, alternated (CALLBACK_DELIVERY_THREAD on and off; with BENCH_SENDER=both the
//   event loop's runs take both senders))
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { iso } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { openAccount } from '../src/domain/money/ledger.js';
import { createOrganisation } from '../src/domain/organisations/organisation-changes.js';
import { openServices } from '../src/main.js';
import { createSimulatedEvents } from '../src/network/simulated-events.js';
import type { SimulatedEvents } from '../src/domain/simulator/simulator.js';
import { busyPauses } from '../src/store/sqlite-busy.js';
import { createCallbackWorker } from '../src/workers/callback-delivery.js';
import { startReceiverProcess } from '../test/callbacks/processes.js';
import { readyEsims } from './callbacks.js';
import { envInteger, quantile } from './figures.js';
import { startProfile } from './profile.js';
import { dropUnlessKept, scratchDatabase } from './scratch-database.js';

// readyEsims attaches every eSIM in FR first.
const COUNTRIES = ['FR', 'DE'] as const;

/**
 * Attaches, each eSIM to the other country than its last: as fast as the loops go, or paced at
 * `rate` per second. Returns the events made per second.
 */
async function attaches(
  loops: number,
  network: SimulatedEvents,
  iccids: readonly string[],
  next: { n: number },
  seconds: number,
  rate?: number,
  took?: number[],
): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let made = 0;
  await Promise.all(
    Array.from({ length: loops }, async () => {
      for (;;) {
        const k = made;
        if (rate !== undefined) {
          const due = started + (k / rate) * 1000;
          if (due >= deadline) return;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        } else if (performance.now() >= deadline) {
          return;
        }
        made += 1;
        const i = next.n;
        next.n += 1;
        const iccid = iccids[i % iccids.length] ?? '';
        // readyEsims attached every eSIM to COUNTRIES[0], and i starts at iccids.length: pass 1
        // moves each to COUNTRIES[1], pass 2 back, and so on, so every event is a country change.
        const country = COUNTRIES[Math.floor(i / iccids.length) % 2] ?? 'FR';
        const began = performance.now();
        await network.attach(iccid, { country });
        took?.push(performance.now() - began);
        // Each event reaches the service as its own I/O callback (a request to /_sim, a network
        // report), so the event loop turns between them; a loop of awaits on a synchronous
        // database would otherwise run as one chain of microtasks and starve every socket.
        await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  );
  return made / ((performance.now() - started) / 1000);
}

/** Milliseconds the main thread has run on a CPU and waited for one (Linux schedstat). */
const mainThreadTimes = (): number[] => {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ');
    return [Number(fields[0]) / 1e6, Number(fields[1]) / 1e6];
  } catch {
    return [Number.NaN, Number.NaN];
  }
};

/** Where the delivery worker runs in a phase with delivery on. */
interface Variant {
  /** CALLBACK_SENDER_THREAD: the requests on the sender thread, the rest on the event loop. */
  readonly senderThread: boolean;
  /** CALLBACK_DELIVERY_THREAD: the whole worker on the delivery thread. */
  readonly deliveryThread: boolean;
}

const label = (v: Variant): string =>
  v.deliveryThread
    ? 'delivery thread'
    : `event loop, sender thread ${v.senderThread ? 'on' : 'off'}`;

const variantName = (v: Variant): string =>
  v.deliveryThread ? 'delivery-thread' : `thread-${String(v.senderThread)}`;

async function main(): Promise<void> {
  const kind = process.argv[2] ?? 'sqlite';
  const seconds = envInteger('BENCH_DURATION', 10);
  const rate = envInteger('BENCH_RATE', 1000);
  const esims = envInteger('BENCH_ESIMS', 20_000);
  const loops = envInteger('BENCH_INGEST_LOOPS', 4);
  const print = (line: string) => console.log(line);
  const db0 = await scratchDatabase(kind, 'lag');
  const receiver = await startReceiverProcess();
  const env = {
    DATABASE_URL: db0.url,
    DATA_DIR: db0.dir,
    LOG_LEVEL: 'silent',
    DEMO_ON_FIRST_START: 'false',
    // The delivery settings as the environment gives them (CALLBACK_CONCURRENCY, …).
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('CALLBACK_')),
    ),
  };
  const config = loadConfig(env);
  const services = await openServices(config, { checkpointThread: kind === 'sqlite' });
  const { deps } = services;
  const log = { warn: (_: object, message: string) => print(`  warn: ${message}`) };
  /**
   * The delivery worker as `esim serve` runs it (on this event loop, or on the delivery thread),
   * or in a second process. It drains first, so a thread has loaded and connected before the
   * phase is timed.
   */
  const startDelivery = async (
    variant: Variant = {
      senderThread: config.callbackSenderThread,
      deliveryThread: config.callbackDeliveryThread,
    },
  ): Promise<{ stop(): Promise<void> }> => {
    if (process.env['BENCH_DELIVERY'] !== 'process') {
      const worker = createCallbackWorker(
        {
          ...deps,
          config: {
            ...config,
            callbackSenderThread: variant.senderThread,
            callbackDeliveryThread: variant.deliveryThread,
          },
        },
        log,
      );
      await worker.drain();
      worker.start();
      return worker;
    }
    const masterKey = config.masterKey?.toString('hex');
    const child = fork(fileURLToPath(new URL('./callback-lag-worker.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        BENCH_WORKER_ENV: JSON.stringify({
          ...env,
          ...(masterKey === undefined ? {} : { MASTER_KEY: masterKey }),
        }),
      },
    });
    await once(child, 'message');
    return {
      async stop() {
        const exited = once(child, 'exit');
        child.send('stop');
        await exited;
      },
    };
  };
  try {
    const created = await createOrganisation(
      { db: deps.store.db, clock: deps.clock, random: deps.random, cipher: deps.cipher },
      { name: 'Callback lag', callbackUrl: `${receiver.url}/hook`, callbackVersion: 'V3' },
      (trx, org) =>
        openAccount(trx, { organisationId: org.id, balance: 1e12, at: deps.clock.now() }),
    );
    const setupStarted = performance.now();
    const iccids = await readyEsims(deps, created.apiKey, esims);
    const network = createSimulatedEvents(deps, deps.random, deps.network);
    const drain = async () => {
      const worker = createCallbackWorker(
        { ...deps, config: { ...config, callbackDeliveryThread: false } },
        log,
      );
      await worker.drain();
      await worker.stop();
    };
    await drain(); // the first attachments' callbacks
    // The statistics autovacuum keeps on a running server (PostgreSQL's default; it may be off on
    // a development server). Without them the planner takes each table for a small one and reads
    // an event's live assignments through both the eSIM's index and the index by state, so every
    // event reads an index entry per live assignment of all eSIMs (20,000 of them here).
    if (kind === 'postgres') await sql`analyze`.execute(deps.store.db);
    print(
      `callback-lag on ${kind}: ${iccids.length} eSIMs ready in ${((performance.now() - setupStarted) / 1000).toFixed(0)} s; ` +
        `${seconds} s per phase; ${loops} events under way at once; callback concurrency ${config.callbackConcurrency}, ${config.callbackOrgConcurrency} per organisation`,
    );
    /** How many callbacks are in this status now. */
    const withStatus = async (status: 'pending' | 'delivered') =>
      Number(
        (
          await deps.store.db
            .selectFrom('callback_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('status', '=', status)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const next = { n: iccids.length };
    await attaches(loops, network, iccids, next, 1); // warm-up
    await drain();

    // (1) and (2): ingestion alone, then with the worker delivering, alternated BENCH_ROUNDS
    // times; best of each. BENCH_SENDER=both: each round delivers twice, the requests made on
    // the sender thread and then on the event loop (CALLBACK_SENDER_THREAD on and off);
    // BENCH_DELIVERY_THREAD=both: the whole worker on its thread, then on the event loop.
    const senderModes =
      process.env['BENCH_SENDER'] === 'both' ? [true, false] : [config.callbackSenderThread];
    const threadModes =
      process.env['BENCH_DELIVERY_THREAD'] === 'both'
        ? [true, false]
        : [config.callbackDeliveryThread];
    const senders: Variant[] = threadModes.flatMap((deliveryThread): Variant[] =>
      deliveryThread
        ? [{ deliveryThread, senderThread: false }]
        : senderModes.map((senderThread) => ({ deliveryThread, senderThread })),
    );
    const roundCount = envInteger('BENCH_ROUNDS', 2);
    const off: number[] = [];
    const on = senders.map(() => [] as number[]);
    const sent = senders.map(() => [] as number[]);
    const ratios = senders.map(() => [] as number[]);
    // The service's event loop in each phase: its delay (p99 and worst, ms: a wait in SQLite's
    // busy handler blocks it), the pauses its writes took for a busy database (SQLite), and the
    // share of the phase its thread ran on a CPU and waited for one (the machine's other work).
    const loopDelays = [...senders.map(() => [] as string[]), [] as string[]];
    const watched = async <T>(into: string[] | undefined, run: () => Promise<T>): Promise<T> => {
      const delay = monitorEventLoopDelay({ resolution: 10 });
      const pauses = busyPauses();
      const cpu = mainThreadTimes();
      const started = performance.now();
      delay.enable();
      const result = await run();
      delay.disable();
      const [ran, queued] = mainThreadTimes().map((ms, i) => ms - (cpu[i] ?? 0));
      const share = (ms = 0) => `${((ms / (performance.now() - started)) * 100).toFixed(0)} %`;
      into?.push(
        `${(delay.percentile(99) / 1e6).toFixed(0)}/${(delay.max / 1e6).toFixed(0)} ms, ${busyPauses() - pauses} pauses, ran ${share(ran)}, waited for a CPU ${share(queued)}`,
      );
      return result;
    };
    for (let round = 0; round < roundCount; round += 1) {
      const alone = await watched(loopDelays[senders.length], () =>
        attaches(loops, network, iccids, next, seconds / 2),
      );
      off.push(alone);
      await drain();
      for (const [v, senderThread] of senders.entries()) {
        const worker = await startDelivery(senderThread);
        const profile = round === roundCount - 1 ? await startProfile() : undefined;
        const before = await withStatus('delivered');
        const startedAt = performance.now();
        const rate = await watched(loopDelays[v], () =>
          attaches(loops, network, iccids, next, seconds / 2),
        );
        on[v]?.push(rate);
        ratios[v]?.push(rate / alone);
        sent[v]?.push(
          ((await withStatus('delivered')) - before) / ((performance.now() - startedAt) / 1000),
        );
        await profile?.stop(
          `callback-lag-${kind}-delivery-on${senders.length > 1 ? `-${variantName(senderThread)}` : ''}`,
        );
        await worker.stop();
        await drain();
      }
    }
    const alone = Math.max(...off);
    const rounds = (rates: number[]) => rates.map((r) => r.toFixed(0)).join(', ');
    print(`| events/s, delivery off (best of: ${rounds(off)}) | ${alone.toFixed(0)} |`);
    print(
      `| service thread: loop delay p99/worst, busy pauses, CPU, delivery off (each round) | ${(loopDelays[senders.length] ?? []).join('; ')} |`,
    );
    for (const [v, senderThread] of senders.entries()) {
      const rates = on[v] ?? [];
      const delivering = Math.max(...rates);
      const per = (ratios[v] ?? []).map((r) => `${(r * 100).toFixed(0)} %`).join(', ');
      print(
        `| events/s, delivery on, ${label(senderThread)} (best of: ${rounds(rates)}) | ${delivering.toFixed(0)} (${((delivering / alone) * 100).toFixed(0)} % of off; target >= 90 %; per round: ${per}) |`,
      );
      print(`| callbacks delivered/s meanwhile (each round) | ${rounds(sent[v] ?? [])} |`);
      print(
        `| service thread: loop delay p99/worst, busy pauses, CPU (each round) | ${(loopDelays[v] ?? []).join('; ')} |`,
      );
    }

    // (3) paced, the worker off then on: how long each event takes to be taken in, and with the
    // worker on, the delay from each callback's writing to its delivery.
    const ms = (values: number[]) =>
      `${quantile(values, 0.5).toFixed(2)} / ${quantile(values, 0.99).toFixed(2)}`;
    const tookOff: number[] = [];
    const pacedOff = await attaches(loops, network, iccids, next, seconds, rate, tookOff);
    await drain();
    print(
      `| events/s asked, made: delivery off | ${rate}: ${pacedOff.toFixed(0)}; time to take in an event, ms, median / p99: ${ms(tookOff)} |`,
    );
    // With BENCH_SENDER=both, the paced phase with the worker on runs once per sender.
    for (const senderThread of senders) {
      const tookOn: number[] = [];
      const from = iso(deps.clock.now());
      const worker = await startDelivery(senderThread);
      const profile = await startProfile();
      const paced = await attaches(loops, network, iccids, next, seconds, rate, tookOn);
      await profile?.stop(
        `callback-lag-${kind}-paced${senders.length > 1 ? `-${variantName(senderThread)}` : ''}`,
      );
      const stoppedAt = iso(deps.clock.now());
      const backlog = await withStatus('pending');
      const drained = performance.now();
      while ((await withStatus('pending')) > 0 && performance.now() - drained < 120_000) {
        await new Promise((r) => setTimeout(r, 50));
      }
      await worker.stop();
      const rows = await deps.store.db
        .selectFrom('callback_events')
        .select(['created_at', 'delivered_at', 'status'])
        .where('created_at', '>=', from)
        .where('created_at', '<=', stoppedAt)
        .execute();
      const delays = rows
        .filter((r) => r.delivered_at !== null)
        .map((r) => Date.parse(String(r.delivered_at)) - Date.parse(String(r.created_at)));
      const undelivered = rows.length - delays.length;
      print(`| delivery on, ${label(senderThread)}: |`);
      print(`| events/s asked, made | ${rate}: ${paced.toFixed(0)} |`);
      print(`| time to take in an event, ms, median / p99 | ${ms(tookOn)} |`);
      print(
        `| callbacks written in the paced phase | ${rows.length} (${undelivered} not delivered) |`,
      );
      print(`| backlog when the events stopped | ${backlog} |`);
      print(
        `| delay to delivery, ms: median, p99, worst | ${quantile(delays, 0.5).toFixed(0)}, ${quantile(delays, 0.99).toFixed(0)}, ${Math.max(...delays).toFixed(0)} (target p99 < 1,000) |`,
      );
    }
  } finally {
    await services.close();
    await receiver.kill('SIGTERM');
    const kept = await dropUnlessKept(db0);
    if (kept !== undefined) print(kept);
  }
}

await main();
