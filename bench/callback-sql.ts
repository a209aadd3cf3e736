// Benchmark: what claiming and recording callbacks cost SQLite itself, without the service's
// JavaScript: the statements the delivery worker runs (claim 16 due events of one organisation,
// then record 16 attempts and the delivered update), prepared once, on a copy of a database that
// `callback-cost.ts` kept with events waiting (BENCH_KEEP_DATABASE=1 BENCH_PHASES=ingest). Each
// variant changes the copy's schema first, and the variants are alternated BENCH_ROUNDS (3) times;
// the figure is CPU per callback (process.cpuUsage) and each statement's share of it.
//
//   npx tsx bench/callback-sql.ts <kept.sqlite> [variant,...]
//
// Variants: `shipped` (the schema as it is); `counters` (the status counters not moved between
// pending and delivering); `no-moves` (none of the three triggers on status moves);
// `no-status-list` (without the status list's index); `one-commit` (the claim and the record in
// one transaction); joined with `+`.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { envInteger } from './figures.js';

const CLOSED = `('delivered', 'failed', 'undeliverable')`;

function prepareVariant(db: SQLite.Database, variant: ReadonlySet<string>): void {
  if (variant.has('counters')) {
    db.exec(`drop trigger callback_events_status_moved;
      create trigger callback_events_status_moved after update of status on callback_events
      when old.status <> new.status and (old.status in ${CLOSED} or new.status in ${CLOSED})
      begin
        insert into organisation_counts (organisation_id, name, value)
        select old.organisation_id, 'callbacks:' || old.status, -1 where old.status in ${CLOSED}
        on conflict (organisation_id, name) do update set value = value + excluded.value;
        insert into organisation_counts (organisation_id, name, value)
        select new.organisation_id, 'callbacks:' || new.status, 1 where new.status in ${CLOSED}
        on conflict (organisation_id, name) do update set value = value + excluded.value;
      end;`);
  }
  if (variant.has('no-moves')) {
    for (const name of ['status_moved', 'moved', 'retrying_moved']) {
      db.exec(`drop trigger callback_events_${name}`);
    }
  }
  if (variant.has('no-status-list')) db.exec('drop index callback_events_org_status_seq');
}

function run(source: string, name: string, events: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'esim-bench-callback-sql-'));
  const path = join(dir, 'copy.sqlite');
  copyFileSync(source, path);
  const db = new SQLite(path);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const variant = new Set(name.split('+'));
    prepareVariant(db, variant);
    const org = (
      db.prepare('select organisation_id from callback_endpoints').get() as {
        organisation_id: string;
      }
    ).organisation_id;
    const now = '2999-01-01T00:00:00.000Z';
    const statements = {
      begin: db.prepare('begin immediate'),
      commit: db.prepare('commit'),
      turns: db.prepare(`select organisation_id, in_flight from callback_endpoints
        where in_flight < 16 and paused_at is null and (backoff_until is null or backoff_until <= ?)
        and open_events > 0 order by served_at limit 64`),
      claim: db.prepare(`update callback_events set status = 'delivering', locked_until = ?,
        locked_by = ?, updated_at = ? where id in (select e.id from callback_events e
        where e.organisation_id = ? and e.status = 'pending' and e.next_attempt_at <= ?
        and not exists (select p.id from callback_events p
          where p.iccid = e.iccid and p.status = 'pending' and p.seq < e.seq)
        and not exists (select d.id from callback_events d
          where d.iccid = e.iccid and d.status = 'delivering')
        order by e.next_attempt_at limit 16) returning *`),
      served: db.prepare('update callback_endpoints set served_at = ? where organisation_id = ?'),
      lock: db.prepare('select * from callback_endpoints where organisation_id = ?'),
      attempts: db.prepare(`insert into callback_attempts (event_id, attempt_no, attempted_at, url,
        status_code, latency_ms, error, response_snippet, request_headers, request_body) values
        ${Array.from({ length: 16 }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`),
      delivered: db.prepare(`update callback_events set status = 'delivered',
        attempts = attempts + 1, next_attempt_at = ?, last_status = ?, locked_until = null,
        locked_by = null, updated_at = ?, delivered_at = ?
        where id in (${Array.from({ length: 16 }, () => '?').join(', ')})
        and locked_by = ? and status = 'delivering'`),
    };
    const headers = JSON.stringify({
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'esim-bundle-service instance/bench',
      'x-event-id': 'e'.repeat(36),
      'x-timestamp': now,
      'x-attempt': '1',
      'x-signature': 's'.repeat(64),
    });
    const spent = new Map<string, number>();
    const timed = <T>(label: string, work: () => T): T => {
      const started = process.cpuUsage();
      const value = work();
      const used = process.cpuUsage(started);
      spent.set(label, (spent.get(label) ?? 0) + used.user + used.system);
      return value;
    };
    const oneCommit = variant.has('one-commit');
    let done = 0;
    const started = process.cpuUsage();
    while (done < events) {
      timed('commits', () => statements.begin.run());
      timed('claim', () => statements.turns.all(now));
      const rows = timed(
        'claim',
        () => statements.claim.all(now, 'bench', now, org, now) as { id: string }[],
      );
      timed('claim', () => statements.served.run(now, org));
      if (!oneCommit) {
        timed('commits', () => statements.commit.run());
        timed('commits', () => statements.begin.run());
      }
      if (rows.length < 16) {
        statements.commit.run();
        throw new Error(`${rows.length} events claimed: the database has too few waiting`);
      }
      timed('record', () => statements.lock.all(org));
      timed('attempts', () =>
        statements.attempts.run(
          rows.flatMap((r) => [
            r.id,
            1,
            now,
            'http://127.0.0.1/hook',
            200,
            1,
            null,
            'ok',
            headers,
            null,
          ]),
        ),
      );
      timed('delivered', () =>
        statements.delivered.run(now, 200, now, now, ...rows.map((r) => r.id), 'bench'),
      );
      timed('commits', () => statements.commit.run());
      done += rows.length;
    }
    const used = process.cpuUsage(started);
    const parts = [...spent].map(([label, us]) => `${label} ${(us / done).toFixed(1)}`).join(', ');
    return `${name}: ${((used.user + used.system) / done).toFixed(1)} µs a callback (${parts})`;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const [source, list] = process.argv.slice(2);
if (source === undefined) {
  console.error('usage: npx tsx bench/callback-sql.ts <kept.sqlite> [variant,...]');
  process.exit(2);
}
const variants = (list ?? 'shipped,counters,no-moves+no-status-list,one-commit').split(',');
const rounds = envInteger('BENCH_ROUNDS', 3);
const events = envInteger('BENCH_EVENTS', 4000);
for (let round = 1; round <= rounds; round += 1) {
  for (const name of variants) console.log(`round ${round}: ${run(source, name, events)}`);
}
