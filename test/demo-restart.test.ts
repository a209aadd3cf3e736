import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UpdateQueryNode } from 'kysely';
import type { KyselyPlugin } from 'kysely';
import { announceDemo, createDemoOrganisation } from '../src/demo.js';
import { DEMO_CUSTOMER_REF, DEMO_ICCID, DEMO_INVENTORY_UNITS } from '../src/demo-data.js';
import { tableName } from '../src/store/write-watch.js';
import { DATABASES, restartedApp, startTestApp } from './harness.js';
import type { TestApp } from './harness.js';

// The demo organisation of a first start is made in several transactions. A start that stops
// half way (a crash, a kill) leaves part of it; the next start makes it whole again, with its
// fixed identifiers, instead of leaving a demo without its eSIM, orders or settings.

for (const kind of DATABASES) {
  describe(`demo organisation after a start stopped while making it [${kind}]`, () => {
    let t: TestApp;
    let failing = true;
    // The demo's last step (its settings: consumption billing, the callback URL) fails, as if
    // the process had died there: everything before it is in the database.
    const crash: KyselyPlugin = {
      transformQuery(args) {
        if (
          failing &&
          UpdateQueryNode.is(args.node) &&
          tableName(args.node.table) === 'organisations'
        ) {
          throw new Error('the process stopped here');
        }
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };

    before(async () => {
      t = await startTestApp(
        kind,
        {},
        { storePlugins: [{ kysely: crash, direct: () => undefined }] },
      );
    });
    after(() => t.close());

    it('is made again, whole, by the next start', async () => {
      await assert.rejects(createDemoOrganisation(t.deps, 'http://127.0.0.1:1'), /stopped here/);
      failing = false;
      await restartedApp(t, async (app, deps) => {
        const printed: string[] = [];
        await announceDemo(deps, 'http://127.0.0.1:1', (line) => printed.push(line));
        const key = /^API key: (\S+)$/m.exec(printed.join('\n'))?.[1];
        assert.ok(key !== undefined, `a new demo key is printed: ${printed.join('\n')}`);
        const call = (url: string) => app.inject({ url, headers: { 'x-api-key': key } });
        const esim = await call(`/v2.1/esims/${DEMO_ICCID}`);
        assert.equal(esim.statusCode, 200, esim.body);
        assert.equal(esim.json<{ customerRef?: string }>().customerRef, DEMO_CUSTOMER_REF);
        const inventory = await call('/v2.1/inventory');
        assert.equal(inventory.statusCode, 200, inventory.body);
        const units = inventory
          .json<{ bundles: { available?: { remaining?: number }[] }[] }>()
          .bundles.flatMap((b) => b.available ?? [])
          .reduce((n, a) => n + (a.remaining ?? 0), 0);
        assert.equal(units, DEMO_INVENTORY_UNITS, 'one inventory order, not two');
        const organisation = await call('/v2.1/organisation');
        assert.equal(organisation.statusCode, 200, organisation.body);
        assert.equal(
          organisation.json<{ organisations: { callbackUrl: string }[] }>().organisations[0]
            ?.callbackUrl,
          'http://127.0.0.1:1/_sim/callback-receiver',
          'the last step, the settings, is made',
        );
        // A later start finds the demo whole and makes nothing again.
        const later: string[] = [];
        await announceDemo(deps, 'http://127.0.0.1:1', (line) => later.push(line));
        assert.match(later.join('\n'), /^Demo organisation \S+ exists/m);
      });
    });
  });
}
