import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DATABASES, eventually, restartedApp, startTestApp } from '../harness.js';
import { startFileBackedApp } from '../fixtures/orders.js';
import type { TestApp, TestOrg } from '../harness.js';
import { recordUsage, snapshot } from '../callbacks/fixtures.js';
import { holdLocks, waitingOnLocks } from '../locks.js';
import { planOf, statementsOf } from '../query-plan.js';
import { pruneCallbackHistory } from '../../src/domain/callbacks/retention.js';
import { listEvents } from '../../src/store/repositories/callback-list-repository.js';

// The retention deletes finished deliveries older than CALLBACK_RETENTION_DAYS. The deliveries
// left keep their row numbers (029-callback-deletions): GET /callbacks pages by number and by key
// hold each of them once, anywhere the deleted ones were, and its totals (all, per status) count
// exactly the deliveries left, while new ones arrive and more are deleted. A resend of a deleted
// delivery is a 404, also when the retention deletes it while the resend runs.

interface Listed {
  ids: string[];
  total: number;
  links: Map<string, string>;
}

/** Long before any retention: a finished delivery with this time is pruned at the next run. */
const LONG_AGO = '2000-01-01T00:00:00.000Z';

for (const kind of DATABASES) {
  describe(`deliveries after the retention deletes old ones [${kind}]`, () => {
    let t: TestApp;

    before(async () => {
      t = await startTestApp(kind, { callbackRetentionDays: 1 });
    });
    after(() => t.close());

    /** One Utilisation callback of the organisation, pending (no worker runs here). */
    const event = async (org: TestOrg) => {
      await recordUsage(t, org.id, snapshot({ usedBytes: 10_000_000 }), 0);
      t.clock.advance(1);
    };
    const list = async (org: TestOrg, url: string): Promise<Listed> => {
      const res = await t.request(org.apiKey, { method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      const links = new Map<string, string>();
      for (const part of String(res.headers['link']).split(', ')) {
        const m = /^<[^>]*?(\/v2\.1\/[^>]*)>; rel="(\w+)"$/.exec(part);
        if (m?.[1] !== undefined && m[2] !== undefined) links.set(m[2], m[1]);
      }
      const body = res.json<{ callbacks: { id: string }[] }>();
      return {
        ids: body.callbacks.map((c) => c.id),
        total: Number(res.headers['x-total-count']),
        links,
      };
    };
    /** Marks deliveries delivered, finished at `at`. */
    const finish = async (ids: readonly string[], at: string) => {
      await t.deps.store.db
        .updateTable('callback_events')
        .set({ status: 'delivered', attempts: 1, next_attempt_at: at })
        .where('id', 'in', [...ids])
        .execute();
    };
    /** Every page by number, in turn: each must carry the total of the whole list. */
    const byNumber = async (org: TestOrg, perPage: number, expected: readonly string[]) => {
      const pages = Math.max(1, Math.ceil(expected.length / perPage));
      const seen: string[] = [];
      for (let page = 1; page <= pages; page += 1) {
        const listed = await list(org, `/v2.1/callbacks?perPage=${perPage}&page=${page}`);
        assert.equal(listed.total, expected.length, `X-Total-Count of page ${page}`);
        assert.match(listed.links.get('last') ?? '', new RegExp(`page=${pages}$`));
        seen.push(...listed.ids);
      }
      assert.deepEqual(seen, expected);
      const past = await list(org, `/v2.1/callbacks?perPage=${perPage}&page=${pages + 1}`);
      assert.deepEqual(past.ids, []);
    };
    /** Follows the next links from `url`, adding an event between pages. */
    const follow = async (org: TestOrg, url: string) => {
      const seen: string[] = [];
      let next: string | undefined = url;
      while (next !== undefined) {
        const page = await list(org, next);
        seen.push(...page.ids);
        next = page.links.get('next');
        await event(org);
      }
      return seen;
    };
    const total = async (org: TestOrg, status: string) =>
      (await list(org, `/v2.1/callbacks?status=${status}&perPage=1`)).total;

    it('pages and totals hold exactly the deliveries left, wherever the deleted ones were', async () => {
      const org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
      for (let i = 0; i < 40; i += 1) await event(org);
      const all = (await list(org, '/v2.1/callbacks?perPage=500')).ids;
      assert.equal(all.length, 40);
      // Newest first: the oldest two, a run of eight in the middle, and every fifth one.
      const gone = all.filter((_, i) => i >= 38 || (i >= 12 && i < 20) || i % 5 === 2);
      const recent = all.filter((_, i) => i % 7 === 3 && !gone.includes(all[i] ?? ''));
      await finish(gone, LONG_AGO);
      await finish(recent, t.deps.clock.now().toISOString());
      assert.equal(await pruneCallbackHistory(t.deps), gone.length);

      const left = all.filter((id) => !gone.includes(id));
      const whole = await list(org, '/v2.1/callbacks?perPage=500');
      assert.deepEqual(whole.ids, left);
      assert.equal(whole.total, left.length);
      for (const perPage of [1, 3, 7]) await byNumber(org, perPage, left);
      assert.equal(await total(org, 'delivered'), recent.length);
      assert.equal(await total(org, 'pending'), left.length - recent.length);
      assert.deepEqual(
        (await list(org, '/v2.1/callbacks?status=delivered&perPage=500')).ids,
        left.filter((id) => recent.includes(id)),
      );

      // By key while deliveries arrive: each of those left once, the new ones on no later page.
      assert.deepEqual(await follow(org, '/v2.1/callbacks?perPage=4'), left);

      // A second run deletes more, among numbers the tree has counted already; the deliveries
      // that arrived meanwhile are listed too.
      const now = (await list(org, '/v2.1/callbacks?perPage=500')).ids;
      const more = now.filter((_, i) => i % 3 === 0);
      await finish(more, LONG_AGO);
      assert.equal(await pruneCallbackHistory(t.deps), more.length);
      const rest = now.filter((id) => !more.includes(id));
      for (const perPage of [2, 5]) await byNumber(org, perPage, rest);
      assert.equal(await total(org, 'delivered'), rest.filter((id) => recent.includes(id)).length);

      // Another organisation's list is untouched by this one's deletions.
      const other = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
      for (let i = 0; i < 5; i += 1) await event(other);
      await byNumber(other, 2, (await list(other, '/v2.1/callbacks?perPage=500')).ids);
      assert.equal((await list(other, '/v2.1/callbacks')).total, 5);
    });

    it('a resend of a delivery the retention deleted is a 404 naming it, not a 409', async () => {
      const org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
      for (let i = 0; i < 3; i += 1) await event(org);
      const [queued = '', kept = '', gone = ''] = (await list(org, '/v2.1/callbacks')).ids;
      await finish([gone], LONG_AGO);
      await finish([kept], t.deps.clock.now().toISOString());
      assert.equal(await pruneCallbackHistory(t.deps), 1);
      const resend = (id: string) =>
        t.request(org.apiKey, { method: 'POST', url: `/v2.1/callbacks/${id}/resend` });
      const deleted = await resend(gone);
      assert.equal(deleted.statusCode, 404, deleted.body);
      assert.equal(deleted.json<{ message: string }>().message, `callback ${gone} not found`);
      const still = await resend(queued);
      assert.equal(still.statusCode, 409, still.body);
      assert.equal((await resend(kept)).statusCode, 202);
    });

    if (kind === 'postgres') {
      it('a resend that waited for the retention deleting its delivery is a 404', async () => {
        const org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
        await event(org);
        const [id = ''] = (await list(org, '/v2.1/callbacks')).ids;
        await finish([id], LONG_AGO);
        const db = t.deps.store.db;
        /** Backends of this database waiting for a lock: PostgreSQL shows progress, not time. */
        const waiting = (n: number) =>
          eventually(
            async () => ((await waitingOnLocks(db)) >= n ? true : undefined),
            10_000,
            `${n} backends waiting for a lock`,
          );
        // Holding the deletion tree stops the retention's transaction after it has locked and
        // deleted the delivery's row, before it commits.
        const tree = await holdLocks(db, (trx) =>
          sql`lock table callback_deletions in exclusive mode`.execute(trx),
        );
        const pruned = pruneCallbackHistory(t.deps);
        let resent: ReturnType<typeof t.request> | undefined;
        try {
          await waiting(1);
          // The resend reads the delivery as it was (the delete is not committed), and its
          // update waits for the retention's row lock.
          resent = t.request(org.apiKey, { method: 'POST', url: `/v2.1/callbacks/${id}/resend` });
          resent.catch(() => undefined); // awaited below; a failure before then is not unhandled
          await waiting(2);
        } finally {
          await tree.release();
        }
        assert.equal(await pruned, 1);
        const res = await resent;
        assert.equal(res.statusCode, 404, res.body);
        assert.equal(res.json<{ message: string }>().message, `callback ${id} not found`);
      });
    }

    it('deleting from the oldest end keeps the tree to a few rows, however many are deleted', async () => {
      const org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
      for (let i = 0; i < 300; i += 1) await event(org);
      const all = (await list(org, '/v2.1/callbacks?perPage=500')).ids;
      const treeRows = async () =>
        Number(
          (
            await t.deps.store.db
              .selectFrom('callback_deletions')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('organisation_id', '=', org.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      // Three passes from the oldest end, as the retention goes: 100, 150, then 260 deleted.
      for (const upTo of [100, 150, 260]) {
        await finish(all.slice(300 - upTo), LONG_AGO);
        await pruneCallbackHistory(t.deps);
        const left = all.slice(0, 300 - upTo);
        await byNumber(org, 7, left);
        // The full nodes keep their rows and lose those inside them: some 2 x 41 rows at most,
        // where counting every number would keep one row per deleted delivery and more.
        assert.ok((await treeRows()) <= 2 * 41, `${await treeRows()} rows of tree`);
      }
    });

    it('a page by number after deletions walks the tree by key and reads its rows by index', async () => {
      const org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
      for (let i = 0; i < 30; i += 1) await event(org);
      const all = (await list(org, '/v2.1/callbacks?perPage=500')).ids;
      await finish([all[3], all[4], all[20]].map(String), LONG_AGO);
      await pruneCallbackHistory(t.deps);
      const db = t.deps.store.db;
      const statements = await statementsOf(db, (d) =>
        listEvents(d, { organisationId: org.id, limit: 5, offset: 10 }),
      );
      const [state, rows] = statements;
      assert.ok(state !== undefined && rows !== undefined);
      assert.doesNotMatch(
        await planOf(db, kind, state),
        /(^|\n)SCAN (?!CONSTANT ROW)|Seq Scan|Sort/,
      );
      const plan = await planOf(db, kind, rows, { run: true });
      assert.match(
        plan,
        kind === 'sqlite'
          ? /SEARCH callback_events USING INDEX callback_events_org_seq \(organisation_id=\? AND org_seq<\?\)/
          : /using callback_events_org_seq on callback_events[^\n]*\n\s*Index Cond: \(\(organisation_id = .*\) AND \(org_seq <= /,
        plan,
      );
      assert.doesNotMatch(
        plan,
        /TEMP B-TREE|\bSort\b|Seq Scan|SCAN (callback_events|d|callback_deletions)\b/,
      );
    });
  });
}

for (const kind of DATABASES) {
  describe(`029-callback-deletions on deliveries deleted before it [${kind}]`, () => {
    it('counts their numbers into the tree and the status totals again', async () => {
      const f = await startFileBackedApp(kind);
      const { t } = f;
      try {
        const org = await t.createOrg({ callbackUrl: 'http://127.0.0.1:9/hook' });
        for (let i = 0; i < 12; i += 1) {
          await recordUsage(t, org.id, snapshot({ usedBytes: 10_000_000 }), 0);
          t.clock.advance(1);
        }
        const db = t.deps.store.db;
        const ids = (
          await listEvents(db, { organisationId: org.id, limit: 50, offset: 0 })
        ).events.map((e) => e.id);
        // Deleted as before 029: the rows gone, their numbers and status counts left as they
        // were. Then the database is as it was before 029 ran.
        const gone = [ids[1], ids[2], ids[7], ids[11]].map(String);
        await db
          .updateTable('callback_events')
          .set({ status: 'delivered', attempts: 1 })
          .where('id', 'in', gone)
          .execute();
        if (kind === 'sqlite') {
          await sql`drop trigger callback_events_status_removed`.execute(db);
          await sql`drop trigger callback_events_retrying_removed`.execute(db);
        } else {
          await sql`drop function callback_events_uncounted() cascade`.execute(db);
        }
        await db.deleteFrom('callback_attempts').where('event_id', 'in', gone).execute();
        await db.deleteFrom('callback_events').where('id', 'in', gone).execute();
        await sql`drop table callback_deletions`.execute(db);
        await sql`delete from kysely_migration where name = '029-callback-deletions'`.execute(db);

        // The next start runs 029 on that data.
        await restartedApp(t, async (app) => {
          const ask = async (url: string) => {
            const res = await app.inject({ url, headers: { 'x-api-key': org.apiKey } });
            assert.equal(res.statusCode, 200, res.body);
            return {
              ids: res.json<{ callbacks: { id: string }[] }>().callbacks.map((c) => c.id),
              total: Number(res.headers['x-total-count']),
            };
          };
          const left = ids.filter((id) => !gone.includes(id));
          const seen: string[] = [];
          for (let page = 1; page <= 3; page += 1) {
            const listed = await ask(`/v2.1/callbacks?perPage=3&page=${page}`);
            assert.equal(listed.total, left.length);
            seen.push(...listed.ids);
          }
          assert.deepEqual(seen, left);
          assert.equal((await ask('/v2.1/callbacks?status=delivered')).total, 0);
          assert.equal((await ask('/v2.1/callbacks?status=pending')).total, left.length);
        });
      } finally {
        await f.close();
      }
    });
  });
}
