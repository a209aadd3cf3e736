import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, FR_2MB, buy, seedTestBundles } from '../../../test/esim-fixtures.js';
import { DATABASES, startTestApp } from '../../../test/harness.js';
import type { TestApp, TestOrg } from '../../../test/harness.js';
import { unzip } from '../../../test/zip.js';
import { DomainError } from '../errors/error-codes.js';
import {
  MAX_INSTALL_REFERENCES,
  appleInstallUrlOf,
  installCsv,
  installZip,
  loadInstallEntries,
  parseReferences,
} from './install-data.js';

// Install data of several references at once: the capability the later versions'
// GET /esims/assignments serves (its routes are tested through HTTP beside them).

async function refusal(work: () => unknown): Promise<DomainError> {
  try {
    await work();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  assert.fail('expected a refusal');
}

describe('parseReferences', () => {
  it('splits, trims and keeps each reference once, in the order given', () => {
    assert.deepEqual(parseReferences(' a, b ,a,c'), ['a', 'b', 'c']);
  });

  it('refuses an empty reference and too many, naming the parameter', async () => {
    for (const text of ['', 'a,,b', 'a,']) {
      const error = await refusal(() => parseReferences(text));
      assert.equal(error.status, 400);
      assert.match(error.message, /query parameter reference/);
    }
    const many = Array.from({ length: MAX_INSTALL_REFERENCES + 1 }, (_, i) => `r${i}`).join(',');
    assert.match((await refusal(() => parseReferences(many))).message, /at most 50/);
    assert.match(
      (await refusal(() => parseReferences('x'.repeat(101)))).message,
      /at most 100 characters/,
    );
  });
});

for (const kind of DATABASES) {
  describe(`install data of several references [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;
    let first: { orderReference: string; iccids: string[] };
    let second: { orderReference: string; iccids: string[] };
    let foreign: string;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
      first = await buy(t, org, FR_1MB.name, { quantity: 2 });
      second = await buy(t, org, FR_2MB.name, { quantity: 1 });
      foreign = (await buy(t, other, FR_1MB.name)).orderReference;
    });
    after(() => t.close());

    it('answers each reference in the order asked, one entry per eSIM and bundle', async () => {
      const entries = await loadInstallEntries(t.deps.store.db, org.id, [
        second.orderReference,
        first.orderReference,
      ]);
      assert.deepEqual(
        entries.map((e) => [e.reference, e.bundle]),
        [
          [second.orderReference, FR_2MB.name],
          [first.orderReference, FR_1MB.name],
          [first.orderReference, FR_1MB.name],
        ],
      );
      assert.deepEqual(
        entries
          .slice(1)
          .map((e) => e.iccid)
          .sort(),
        [...first.iccids].sort(),
      );
      for (const e of entries) {
        assert.equal(e.profileStatus, 'Released');
        assert.match(e.pin, /^\d{4}$/);
        assert.match(e.puk, /^\d{8}$/);
        assert.equal(e.firstInstalledDateTime, '');
      }
    });

    it('is a 404 naming the first reference that is unknown or another organisation\u2019s', async () => {
      for (const missing of [foreign, 'no-such-reference']) {
        const error = await refusal(() =>
          loadInstallEntries(t.deps.store.db, org.id, [first.orderReference, missing]),
        );
        assert.equal(error.status, 404);
        assert.equal(error.message, `reference ${missing} not found`);
      }
    });

    it('adds the Apple install link as a CSV column when asked, and the CSV to the ZIP', async () => {
      const entries = await loadInstallEntries(t.deps.store.db, org.id, [first.orderReference]);
      const csv = installCsv(entries, { appleInstallUrl: true });
      const lines = csv.trim().split('\r\n');
      assert.equal(lines[0], 'ICCID,Matching ID,RSP URL,Bundle,Apple Install URL');
      const [entry] = entries;
      assert.ok(entry !== undefined);
      assert.ok(
        lines.includes(
          [
            entry.iccid,
            entry.matchingId,
            entry.smdpAddress,
            entry.bundle,
            appleInstallUrlOf(entry),
          ].join(','),
        ),
      );
      assert.match(
        appleInstallUrlOf(entry),
        /^https:\/\/esimsetup\.apple\.com\/esim_qrcode_provisioning\?carddata=LPA%3A1%24/,
      );
      const files = await unzip(await installZip(entries, t.clock.now(), installCsv(entries)));
      assert.deepEqual(
        [...files.keys()].sort(),
        [...first.iccids.map((i) => `${i}.png`), 'esims.csv'].sort(),
      );
      assert.equal(files.get('esims.csv')?.toString('utf8'), installCsv(entries));
      const plain = await unzip(await installZip(entries, t.clock.now()));
      assert.equal(plain.has('esims.csv'), false);
    });
  });
}
