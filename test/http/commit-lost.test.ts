import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type pg from 'pg';
import { saveCard } from '../../src/domain/money/save-card.js';
import { seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';
import type { PortalServer } from '../portal/portal-harness.js';
import { signInHttp, startPortal } from '../portal/portal-harness.js';
import { activityPause, adminOf, balanceOf, holdWrites, orderOne } from './postgres-orders.js';

// A connection lost while its COMMIT is under way leaves the outcome unknown: the server may have
// applied the transaction or not. The service says so (503 commit_unknown, no Retry-After, since
// a blind retry could do the work twice) instead of a 500, and the answer's advice holds: the
// same request sent again with the same Idempotency-Key places the order once.
//
// The portal's forms say the same in a page of their own.
//
// The test holds the COMMIT: a deferred trigger on the written row takes an advisory lock that
// the test holds, so the service's COMMIT waits on it; the test then ends that session.

const HOLD = 4_310_001;

/**
 * The pid of this database's session waiting on a lock inside its COMMIT, once there is one;
 * fails if `answered` settles first (the order ended before its COMMIT could wait).
 */
async function commitWaiting(admin: pg.Client, answered: Promise<unknown>): Promise<number> {
  let settled = false;
  void answered.finally(() => (settled = true)).catch(() => undefined);
  for (;;) {
    const { rows } = await admin.query<{ pid: number }>(
      "select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and lower(query) = 'commit'",
    );
    const pid = rows[0]?.pid;
    if (pid !== undefined) return pid;
    if (settled) throw new Error('the order was answered before its COMMIT waited');
    await activityPause();
  }
}

/**
 * A deferred trigger on `table` that makes a COMMIT writing it wait for the lock HOLD: of every
 * row inserted or updated, or only of those the condition `when` holds for.
 */
const holdCommitsOf = (admin: pg.Client, table: string, when?: string): Promise<void> =>
  holdWrites(admin, {
    name: 'hold_commit',
    table,
    timing: 'after insert or update',
    lock: HOLD,
    deferred: true,
    ...(when === undefined ? {} : { when }),
  });

/** Runs `send` with the lock held, ends the session whose COMMIT waits for it, then lets go. */
async function losingTheCommit<T>(admin: pg.Client, send: () => Promise<T>): Promise<T> {
  await admin.query(`select pg_advisory_lock(${HOLD})`);
  try {
    const answer = send();
    const pid = await commitWaiting(admin, answer);
    await admin.query('select pg_terminate_backend($1)', [pid]);
    return await answer;
  } finally {
    await admin.query(`select pg_advisory_unlock(${HOLD})`);
  }
}

describe(
  'PostgreSQL: a connection lost during the COMMIT [postgres]',
  { skip: !DATABASES.includes('postgres') },
  () => {
    let t: TestApp;
    let org: TestOrg;
    let admin: pg.Client;

    before(async () => {
      t = await startTestApp('postgres');
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 10_000 });
      admin = await adminOf(t.config.database);
      await holdCommitsOf(admin, 'orders');
    });
    after(async () => {
      await admin.end();
      await t.close();
    });

    const order = (key: string) => orderOne(t, org.apiKey, key);
    const balance = () => balanceOf(admin, org.id);

    it('answers 503 commit_unknown without Retry-After, and the same Idempotency-Key then places the order once', async () => {
      const before = await balance();
      const lost = await losingTheCommit(admin, () => order('commit-lost-1'));
      assert.equal(lost.statusCode, 503, lost.body);
      assert.equal(lost.headers['retry-after'], undefined);
      const body = lost.json<{ code: string; message: string }>();
      assert.equal(body.code, 'commit_unknown');
      assert.match(body.message, /may or may not have been saved/);
      assert.match(body.message, /same Idempotency-Key/);

      // The service goes on (the pool dropped the ended connection), and the advice holds: the
      // same key places the order, once, however often it is sent.
      const placed = await order('commit-lost-1');
      assert.equal(placed.statusCode, 200, placed.body);
      const again = await order('commit-lost-1');
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().orderReference, placed.json().orderReference);
      const price = before - (await balance());
      assert.ok(price > 0, 'the order was charged');
      const { rows } = await admin.query<{ n: number }>(
        'select count(*)::int as n from orders where organisation_id = $1',
        [org.id],
      );
      assert.equal(rows[0]?.n, 1, 'one order, not two');
    });
  },
);

describe(
  "PostgreSQL: a top-up whose credit's COMMIT is lost [postgres]",
  { skip: !DATABASES.includes('postgres') },
  () => {
    let t: TestApp;
    let org: TestOrg;
    let admin: pg.Client;

    before(async () => {
      t = await startTestApp('postgres');
      org = await t.createOrg({ balance: 1000 });
      await saveCard(t.deps, org.id, { number: '4242424242424242', expMonth: 12, expYear: 2099 });
      admin = await adminOf(t.config.database);
      // The credit's transaction settles the top-up succeeded: its COMMIT is the one held.
      await holdCommitsOf(admin, 'topups', "new.status = 'succeeded'");
    });
    after(async () => {
      await admin.end();
      await t.close();
    });

    const topUp = (key: string) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/organisation/balance?amount=2500',
        headers: { 'idempotency-key': key },
      });
    const audited = async () => {
      const { rows } = await admin.query<{ actor: string; action: string; details: unknown }>(
        "select actor, action, details from audit_log where organisation_id = $1 and action like 'topup.%' order by id",
        [org.id],
      );
      return rows.map((row) => ({
        ...row,
        details:
          typeof row.details === 'string' ? (JSON.parse(row.details) as unknown) : row.details,
      }));
    };

    it('audits topup.unknown, not topup.failed, and the settlement by a retry audits the credit', async () => {
      const before = await balanceOf(admin, org.id);
      const lost = await losingTheCommit(admin, () => topUp('topup-lost-1'));
      assert.equal(lost.statusCode, 503, lost.body);
      assert.equal(lost.json<{ code: string }>().code, 'commit_unknown');
      assert.deepEqual(await audited(), [
        {
          actor: `api-key:${org.id}`,
          action: 'topup.unknown',
          details: { amount: '2500', reason: 'commit_unknown' },
        },
      ]);
      // The session was ended inside its COMMIT, before the commit itself: nothing credited.
      assert.equal(await balanceOf(admin, org.id), before);

      // The same key finds the top-up in doubt, asks the processor, which charged, and settles:
      // credited once, and the settlement's own audit row says so.
      const settled = await topUp('topup-lost-1');
      assert.equal(settled.statusCode, 200, settled.body);
      assert.equal(await balanceOf(admin, org.id), before + 2500);
      const rows = await audited();
      assert.deepEqual(
        rows.map(({ actor, action }) => [actor, action]),
        [
          [`api-key:${org.id}`, 'topup.unknown'],
          ['system', 'topup.succeeded'],
        ],
      );
      assert.equal((rows[1]?.details as { amount?: number }).amount, 2500);
    });
  },
);

describe(
  'PostgreSQL: the portal when a connection is lost during the COMMIT [postgres]',
  { skip: !DATABASES.includes('postgres') },
  () => {
    let portal: PortalServer;
    let admin: pg.Client;

    before(async () => {
      portal = await startPortal('postgres');
      admin = await adminOf(portal.deps.config.database);
    });
    after(async () => {
      await admin.end();
      await portal.close();
    });

    it('answers a 503 page that says the change may or may not have been saved, without Retry-After', async () => {
      const session = await signInHttp(portal.baseUrl, 'Admin');
      await holdCommitsOf(admin, 'organisations');
      const lost = await losingTheCommit(admin, () =>
        session.post('/portal/api/callback', {
          callbackUrl: 'https://receiver.example/usage',
          callbackVersion: 'V3',
        }),
      );
      assert.equal(lost.status, 503);
      assert.equal(lost.headers.get('retry-after'), null);
      assert.match(lost.headers.get('content-type') ?? '', /^text\/html/);
      const page = await lost.text();
      assert.match(page, /Saved or not: check first/);
      assert.match(
        page,
        /The connection to the database was lost while saving, so this change may or may not have been saved\. Check before trying again\./,
      );
    });
  },
);
