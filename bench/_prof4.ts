// in-process timing of inject for the cached catalogue request vs organisation
import { startTestApp } from '../test/harness.js';
import { BUILT_IN_GROUPS } from '../src/domain/catalogue/naming.js';
const t = await startTestApp('sqlite');
const org = await t.createOrg({ groups: [...BUILT_IN_GROUPS] });
async function time(label: string, url: string, key?: string) {
  for (let i = 0; i < 300; i++) await t.request(key, { method: 'GET', url });
  const t0 = performance.now();
  for (let i = 0; i < 2000; i++) await t.request(key, { method: 'GET', url });
  console.log(label, (((performance.now() - t0) / 2000) * 1000).toFixed(1), 'us');
}
await time('healthz (no auth)', '/healthz');
await time('catalogue FR 50', '/v2.1/catalogue?countries=FR&perPage=50', org.apiKey);
await time('catalogue FR 1', '/v2.1/catalogue?countries=FR&perPage=1', org.apiKey);
await time('bundle get', '/v2.1/catalogue/bundle/esim_1GB_7D_GB_V2', org.apiKey);
await t.close();
