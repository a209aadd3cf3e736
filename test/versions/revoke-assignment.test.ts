import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FR_1MB, assignmentsOf, buy, seedTestBundles } from '../esim-fixtures.js';
import { DATABASES, startTestApp } from '../harness.js';
import type { TestApp, TestOrg } from '../harness.js';

// DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId} on the later versions, beside
// its deprecated twin …/applications/{assignmentId}, whose Link names the successor under the
// version the request came in on.

for (const kind of DATABASES) {
  describe(`revoking one assignment on v2.2 to v2.5 [${kind}]`, () => {
    let t: TestApp;
    let org: TestOrg;
    let other: TestOrg;

    before(async () => {
      t = await startTestApp(kind);
      await seedTestBundles(t);
      org = await t.createOrg({ balance: 100_000 });
      other = await t.createOrg({ balance: 100_000 });
    });
    after(() => t.close());

    const revoke = (who: TestOrg, version: string, path: string, type?: string) =>
      t.request(who.apiKey, {
        method: 'DELETE',
        url: `/v${version}${path}${type === undefined ? '' : `?type=${type}`}`,
      });

    for (const version of ['2.2', '2.5']) {
      it(`v${version}: validates, revokes, and keeps other organisations out`, async () => {
        const { iccids } = await buy(t, org, FR_1MB.name);
        const iccid = iccids[0] ?? '';
        const [first] = await assignmentsOf(t, org, iccid);
        assert.ok(first !== undefined);
        const path = `/esims/${iccid}/bundles/${FR_1MB.name}/assignments/${first.assignment.id}`;
        assert.equal((await revoke(other, version, path)).statusCode, 404);
        const checked = await revoke(org, version, path, 'validate');
        assert.equal(checked.statusCode, 200, checked.body);
        assert.equal(checked.json<{ status: string }>().status, 'validated');
        const done = await revoke(org, version, path, 'transaction');
        assert.equal(done.statusCode, 200, done.body);
        assert.equal(done.json<{ status: string }>().status, 'revoked');
        const [after] = await assignmentsOf(t, org, iccid);
        assert.equal(after?.assignment.bundleState, 'Revoked');
      });
    }

    it('the deprecated route links to its successor under the same version', async () => {
      const { iccids } = await buy(t, org, FR_1MB.name);
      const iccid = iccids[0] ?? '';
      const [first] = await assignmentsOf(t, org, iccid);
      const id = first?.assignment.id ?? '';
      for (const version of ['2.1', '2.4']) {
        const res = await revoke(
          org,
          version,
          `/esims/${iccid}/bundles/${FR_1MB.name}/applications/${id}`,
          'validate',
        );
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['deprecation'], 'true');
        assert.equal(
          res.headers['link'],
          `</v${version}/esims/${iccid}/bundles/${FR_1MB.name}/assignments/${id}>; rel="successor-version"`,
        );
      }
    });
  });
}
