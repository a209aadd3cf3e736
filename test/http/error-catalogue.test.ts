import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { ERROR_CATALOGUE, isErrorCode } from '../../src/domain/errors/error-codes.js';
import { HTTP_ERROR_CATALOGUE } from '../../src/http/http-error-codes.js';
import { saveCard } from '../../src/domain/money/save-card.js';
import { openStore } from '../../src/store/database.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// The error catalogue: docs/errors.md lists exactly the codes of src/domain/errors/error-codes.ts
// and src/http/http-error-codes.ts, with the
// same status and default message; error bodies carry catalogue codes; stored idempotent errors,
// in the format of this release and of earlier ones, replay as first answered.

const DECLINED_CARD = '4000000000000002';

interface DocRow {
  readonly status: string;
  readonly message: string;
  readonly when: string;
}

async function documentedCodes(): Promise<Map<string, DocRow>> {
  const text = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map<string, DocRow>();
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    // | `code` | status | default message | when |
    const code = /^`([a-z_]+)`$/.exec(cells[1] ?? '')?.[1];
    if (code === undefined || cells.length !== 6) continue;
    assert.ok(!rows.has(code), `docs/errors.md lists ${code} twice`);
    rows.set(code, { status: cells[2] ?? '', message: cells[3] ?? '', when: cells[4] ?? '' });
  }
  return rows;
}

describe('error catalogue and docs/errors.md', () => {
  it('lists every code of the catalogue, with its status and default message, and no other', async () => {
    const documented = await documentedCodes();
    const catalogue = { ...ERROR_CATALOGUE, ...HTTP_ERROR_CATALOGUE };
    assert.deepEqual([...documented.keys()].sort(), Object.keys(catalogue).sort());
    for (const [code, entry] of Object.entries<{ status: number | string; message: string }>(
      catalogue,
    )) {
      const row = documented.get(code);
      assert.ok(row !== undefined, code);
      const status = entry.status === 'as-configured' ? 'as configured' : String(entry.status);
      assert.equal(row.status, status, `status of ${code}`);
      assert.equal(row.message, entry.message, `default message of ${code}`);
      assert.ok(row.when.length > 0, `docs/errors.md says when ${code} is answered`);
    }
  });
});

for (const kind of DATABASES) {
  describe(`error bodies and stored errors [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      org = await t.createOrg({ balance: 10_000 });
    });
    after(() => t.close());

    /** Rewrites the stored answer of a key as an earlier release (or a foreign writer) left it. */
    async function storeAnswer(key: string, status: number, body: string): Promise<void> {
      const result = await t.deps.store.db
        .updateTable('idempotency_keys')
        .set({ response_status: status, response_body: body })
        .where('organisation_id', '=', org.id)
        .where('idem_key', '=', key)
        .where('state', '=', 'done')
        .executeTakeFirst();
      assert.equal(Number(result.numUpdatedRows), 1);
    }

    const refusedOrder = {
      type: 'transaction',
      assign: false,
      order: [{ type: 'bundle', item: 'esim_no_such_bundle', quantity: 1 }],
    };

    const order = (key: string) =>
      t.request(org.apiKey, {
        method: 'POST',
        url: '/v2.1/orders',
        payload: refusedOrder,
        headers: { 'idempotency-key': key },
      });

    it('answers every error with {message, code} and a catalogue code', async () => {
      const answers = [
        await t.request(undefined, { method: 'GET', url: '/v2.1/organisation' }),
        await t.request(org.apiKey, { method: 'GET', url: '/v2.1/nowhere' }),
        await t.request(org.apiKey, { method: 'GET', url: '/v2.1/esims/123' }),
        await order('body-shape'),
        // Files of the API explorer keep the status of the file server (416, 412).
        await t.request(undefined, {
          method: 'GET',
          url: '/docs/static/swagger-ui.css',
          headers: { range: 'bytes=99999999-' },
        }),
        await t.request(undefined, {
          method: 'GET',
          url: '/docs/static/swagger-ui.css',
          headers: { 'if-match': '"no-such-version"' },
        }),
      ];
      assert.deepEqual(
        answers.map((res) => res.statusCode),
        [403, 404, 400, 400, 416, 412],
      );
      for (const res of answers) {
        assert.ok(res.statusCode >= 400, String(res.statusCode));
        const body = res.json() as Record<string, unknown>;
        assert.deepEqual(Object.keys(body), ['message', 'code']);
        const code = String(body['code']);
        const entry = isErrorCode(code)
          ? ERROR_CATALOGUE[code]
          : Object.entries(HTTP_ERROR_CATALOGUE).find(([known]) => known === code)?.[1];
        assert.ok(entry !== undefined, code);
        assert.equal(entry.status, res.statusCode, `status of ${code}`);
      }
    });

    it('replays a refused request with the same status, body and headers', async () => {
      const first = await order('refused');
      assert.equal(first.statusCode, 400);
      assert.equal(first.json().code, 'unknown_bundle');
      const again = await order('refused');
      assert.equal(again.statusCode, 400);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['content-type'], first.headers['content-type']);
      assert.equal(again.headers['idempotent-replayed'], 'true');
    });

    it('replays a declined top-up, whose error the top-up itself stored, from its code', async () => {
      const payer = await t.createOrg({ balance: 0 });
      await saveCard(t.deps, payer.id, { number: DECLINED_CARD, expMonth: 12, expYear: 2099 });
      const topUp = () =>
        t.request(payer.apiKey, {
          method: 'POST',
          url: '/v2.1/organisation/balance?amount=900',
          headers: { 'idempotency-key': 'declined-top-up' },
        });
      const first = await topUp();
      assert.equal(first.statusCode, 400);
      assert.deepEqual(first.json(), {
        message: 'card declined: the card was declined',
        code: 'card_declined',
      });
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await topUp();
      assert.equal(again.statusCode, 400);
      assert.equal(again.body, first.body);
      assert.equal(again.headers['idempotent-replayed'], 'true');
    });

    it('replays an error stored by an earlier release (status and body) from its code', async () => {
      assert.equal((await order('earlier-release')).statusCode, 400);
      const stored = JSON.stringify({
        message: 'card declined: stored earlier',
        code: 'card_declined',
      });
      await storeAnswer('earlier-release', 400, stored);
      const again = await order('earlier-release');
      assert.equal(again.statusCode, 400);
      assert.equal(again.body, stored);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.match(String(again.headers['content-type']), /^application\/json; charset=utf-8/);
    });

    it('replays a stored answer that is not a catalogue error exactly as stored', async () => {
      assert.equal((await order('not-catalogue')).statusCode, 400);
      const stored = '{"message":"gone","code":"legacy_reason"}';
      await storeAnswer('not-catalogue', 410, stored);
      const again = await order('not-catalogue');
      assert.equal(again.statusCode, 410);
      assert.equal(again.body, stored);
      assert.equal(again.headers['idempotent-replayed'], 'true');
    });
  });
}

describe('readiness error body', () => {
  it('answers 503 {message, code: database_unreachable} with Retry-After', async () => {
    const t = await startTestApp('sqlite');
    // Nothing listens on port 1: every query fails at once with a refused connection.
    const unreachable = openStore({ kind: 'postgres', url: 'postgres://esim@127.0.0.1:1/none' });
    const app = await buildApp({ ...t.deps, store: unreachable }, { logLevel: 'silent' });
    try {
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.headers['retry-after'], '5');
      assert.deepEqual(ready.json(), {
        message: 'database unreachable',
        code: 'database_unreachable',
      });
    } finally {
      await app.close();
      await unreachable.close();
      await t.close();
    }
  });
});
