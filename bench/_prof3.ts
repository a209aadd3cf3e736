import { startTestApp } from '../test/harness.js';
import { findOrganisationByKeyHash } from '../src/store/repositories/organisation-repository.js';
import { hashApiKey } from '../src/security/api-keys.js';
const t = await startTestApp('sqlite');
const db = t.deps.store.db;
const org = await t.createOrg({});
const h = hashApiKey(org.apiKey);
async function time(label: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 200; i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < 2000; i++) await fn();
  console.log(label, (((performance.now() - t0) / 2000) * 1000).toFixed(1), 'us');
}
await time('select 1 row by pk', () =>
  db
    .selectFrom('bundles')
    .select('name')
    .where('name', '=', 'esim_1GB_7D_GB_V2')
    .executeTakeFirst(),
);
await time('org by key hash', () => findOrganisationByKeyHash(db, h));
await time('sha256', async () => hashApiKey(org.apiKey));
await t.close();
const t2 = await startTestApp('sqlite');
const db2 = t2.deps.store.db;
const { CompiledQuery } = await import('kysely');
const compiled = db2.selectFrom('bundles').select('name').where('name', '=', 'x').compile();
await time('precompiled executeQuery', () =>
  db2.executeQuery(CompiledQuery.raw(compiled.sql, ['esim_1GB_7D_GB_V2'])),
);
await time('raw sql select 1', () => db2.executeQuery(CompiledQuery.raw('select 1', [])));
await t2.close();
