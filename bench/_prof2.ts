import { startTestApp } from '../test/harness.js';
import { sql } from 'kysely';
const t = await startTestApp('sqlite');
const db = t.deps.store.db;
const G = `('Standard eSIM Bundles','Standard Unlimited Lite','Standard Unlimited Essential','Standard Unlimited Plus','Regional Bundles','IoT Bundles','Promo')`;
const G1 = `('Standard eSIM Bundles')`;
const cols =
  'b.name, b.description, b.groups, b.countries, b.roaming, b.data_amount, b.duration, b.speed, b.autostart, b.unlimited, b.price';
const variants: Record<string, string> = {
  inC_exG: `select ${cols}, count(*) over () as total from bundles b where b.name in (select bundle_name from bundle_countries where iso in ('FR')) and exists (select 1 from bundle_groups g where g.bundle_name = b.name and g.group_name in ${G}) order by b.name limit 50`,
  inC_exG_price: `select ${cols}, count(*) over () as total from bundles b where b.name in (select bundle_name from bundle_countries where iso in ('FR','DE')) and exists (select 1 from bundle_groups g where g.bundle_name = b.name and g.group_name in ${G}) order by b.price, b.name limit 50`,
  nofilter_window_all: `select ${cols}, count(*) over () as total from bundles b where exists (select 1 from bundle_groups g where g.bundle_name = b.name and g.group_name in ${G}) order by b.name limit 50`,
  nofilter_window_in: `select ${cols}, count(*) over () as total from bundles b where b.name in (select bundle_name from bundle_groups g where g.group_name in ${G}) order by b.name limit 50`,
  nofilter_page_only: `select ${cols} from bundles b where exists (select 1 from bundle_groups g where g.bundle_name = b.name and g.group_name in ${G}) order by b.name limit 50`,
  nofilter_count_only: `select count(*) from bundles b where exists (select 1 from bundle_groups g where g.bundle_name = b.name and g.group_name in ${G})`,
  nofilter_count_in: `select count(distinct bundle_name) from bundle_groups g where g.group_name in ${G}`,
  std_window_in: `select ${cols}, count(*) over () as total from bundles b where b.name in (select bundle_name from bundle_groups g where g.group_name in ${G1}) order by b.name limit 50`,
  std_window_ex: `select ${cols}, count(*) over () as total from bundles b where exists (select 1 from bundle_groups g where g.bundle_name = b.name and g.group_name in ${G1}) order by b.name limit 50`,
  region_in: `select ${cols}, count(*) over () as total from bundles b where b.name in (select bundle_name from bundle_countries where region = 'europe') and exists (select 1 from bundle_groups g where g.bundle_name = b.name and g.group_name in ${G1}) order by b.name limit 50`,
};
for (const [k, q] of Object.entries(variants)) {
  const r = sql.raw(q);
  for (let i = 0; i < 20; i++) await r.execute(db);
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) await r.execute(db);
  console.log(
    k.padEnd(22),
    ((performance.now() - t0) / 200).toFixed(3),
    (await r.execute(db)).rows.length,
  );
}
const p = await sql.raw(`explain query plan ${variants.inC_exG}`).execute(db);
console.log(p.rows.map((r: any) => r.detail));
await t.close();
