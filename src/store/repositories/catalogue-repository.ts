import { CompiledQuery, sql } from 'kysely';
import type { Bundle } from '../domain-types.js';
import { batchOf } from '../batch.js';
import { compiledOnce } from '../compiled.js';
import type { DialectName, Executor } from '../database.js';
import type { BundleRow } from '../schema.js';

// Bundles live in `bundles` (lists as JSON text) with two index tables for filtering:
// bundle_countries (base countries and their lower-case region) and bundle_groups. Every write
// here also increments catalogue_state.version, which caches of catalogue answers compare against.

/** Rows per multi-row INSERT: well inside SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 400;

/** A bundle row without its bookkeeping columns. */
export type CatalogueRow = Omit<BundleRow, 'created_at' | 'search_text' | 'item_json'>;

/**
 * A bundle's JSON as GET /catalogue answers it (domain/catalogue/bundle-json.ts): every write of a
 * bundle row stores it in bundles.item_json.
 */
export type BundleJson = (bundle: Bundle) => Buffer;

/** The columns of a CatalogueRow. */
const ROW_COLUMNS = [
  'name',
  'description',
  'groups',
  'countries',
  'roaming',
  'data_amount',
  'duration',
  'speed',
  'autostart',
  'unlimited',
  'price',
] as const;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function bundleFromRow(row: CatalogueRow): Bundle {
  return {
    name: row.name,
    description: row.description,
    groups: JSON.parse(row.groups) as string[],
    countries: JSON.parse(row.countries) as string[],
    roaming: JSON.parse(row.roaming) as string[],
    dataAmount: Number(row.data_amount),
    duration: Number(row.duration),
    speed: JSON.parse(row.speed) as string[],
    autostart: Number(row.autostart) === 1,
    unlimited: Number(row.unlimited) === 1,
    price: Number(row.price),
  };
}

const bundleByName = compiledOnce((db, p: { name: string }) =>
  db.selectFrom('bundles').select(ROW_COLUMNS).where('name', '=', p.name),
);

/**
 * Bundles read in a group-commit batch are read once (batch.ts): orders of the same bundle share
 * the batch's transaction.
 */
export async function findBundleByName(db: Executor, name: string): Promise<Bundle | undefined> {
  const memo = batchOf(db)?.bundleReads as Map<string, Bundle | undefined> | undefined;
  if (memo?.has(name) === true) return memo.get(name);
  const { rows } = await bundleByName.execute(db, { name });
  const row = rows[0];
  const bundle = row === undefined ? undefined : bundleFromRow(row);
  memo?.set(name, bundle);
  return bundle;
}

/**
 * Regions of the bundles' base countries by ISO code, as the domain names them
 * (domain/catalogue/regions.ts); stored lower-case for case-insensitive filtering.
 */
export type CountryRegions = ReadonlyMap<string, string>;

/** Inserts bundles (which must not exist yet) with their index rows, in multi-row batches. */
export async function insertBundles(
  trx: Executor,
  bundles: readonly Bundle[],
  regions: CountryRegions,
  at: string,
  json: BundleJson,
): Promise<void> {
  await bumpCatalogueVersion(trx);
  for (const part of chunks(bundles)) {
    await trx
      .insertInto('bundles')
      .values(
        part.map((b) => ({
          name: b.name,
          description: b.description,
          groups: JSON.stringify(b.groups),
          countries: JSON.stringify(b.countries),
          roaming: JSON.stringify(b.roaming),
          data_amount: b.dataAmount,
          duration: b.duration,
          speed: JSON.stringify(b.speed),
          autostart: b.autostart ? 1 : 0,
          unlimited: b.unlimited ? 1 : 0,
          price: b.price,
          created_at: at,
          search_text: b.description.toLowerCase(),
          item_json: json(b),
        })),
      )
      .execute();
  }
  const countryRows = bundles.flatMap((b) =>
    [...new Set(b.countries)].map((iso) => ({
      bundle_name: b.name,
      iso,
      region: (regions.get(iso) ?? '').toLowerCase(),
    })),
  );
  for (const part of chunks(countryRows)) {
    await trx.insertInto('bundle_countries').values(part).execute();
  }
  const groupRows = bundles.flatMap((b) =>
    [...new Set(b.groups)].map((g) => ({ bundle_name: b.name, group_name: g })),
  );
  for (const part of chunks(groupRows)) {
    await trx.insertInto('bundle_groups').values(part).execute();
  }
}

/** Deletes bundles by name, with their index rows. */
export async function deleteBundles(trx: Executor, names: readonly string[]): Promise<void> {
  await bumpCatalogueVersion(trx);
  for (const part of chunks(names)) {
    await trx.deleteFrom('bundle_countries').where('bundle_name', 'in', part).execute();
    await trx.deleteFrom('bundle_groups').where('bundle_name', 'in', part).execute();
    await trx.deleteFrom('bundles').where('name', 'in', part).execute();
  }
}

/** Inserts or replaces bundles, with their country and group index rows, in the caller's transaction. */
export async function upsertBundles(
  trx: Executor,
  bundles: readonly Bundle[],
  regions: CountryRegions,
  at: string,
  json: BundleJson,
): Promise<void> {
  await deleteBundles(
    trx,
    bundles.map((b) => b.name),
  );
  await insertBundles(trx, bundles, regions, at, json);
}

/**
 * Takes bundles out of every group: they stay readable by name (inventory and assignments refer
 * to them) but no organisation can see or order them any more.
 */
export async function retireBundles(
  trx: Executor,
  names: readonly string[],
  json: BundleJson,
): Promise<void> {
  await bumpCatalogueVersion(trx);
  for (const part of chunks(names)) {
    await trx.deleteFrom('bundle_groups').where('bundle_name', 'in', part).execute();
    const rows = await trx
      .selectFrom('bundles')
      .select(ROW_COLUMNS)
      .where('name', 'in', part)
      .execute();
    for (const row of rows) {
      const retired = { ...bundleFromRow(row), groups: [] };
      await trx
        .updateTable('bundles')
        .set({ groups: '[]', item_json: json(retired) })
        .where('name', '=', row.name)
        .execute();
    }
  }
}

/** Up to `limit` bundles whose JSON was never stored (rows written before 016-bundle-json). */
export async function bundlesWithoutJson(db: Executor, limit: number): Promise<Bundle[]> {
  const rows = await db
    .selectFrom('bundles')
    .select(ROW_COLUMNS)
    .where('item_json', 'is', null)
    .orderBy('name')
    .limit(limit)
    .execute();
  return rows.map(bundleFromRow);
}

/** Stores a bundle's JSON, unless the row has been written since (its JSON is then current). */
export async function writeBundleJson(trx: Executor, name: string, json: Buffer): Promise<void> {
  await trx
    .updateTable('bundles')
    .set({ item_json: json })
    .where('name', '=', name)
    .where('item_json', 'is', null)
    .execute();
}

/** The fingerprint of the encoder that stored bundles.item_json (null: none recorded). */
export async function readJsonFingerprint(db: Executor): Promise<string | null> {
  const row = await db
    .selectFrom('catalogue_state')
    .select('json_fingerprint')
    .where('id', '=', 1)
    .executeTakeFirst();
  return row?.json_fingerprint ?? null;
}

/** Records the fingerprint of the encoder whose JSON the bundles store. */
export async function updateJsonFingerprint(trx: Executor, fingerprint: string): Promise<void> {
  await trx
    .updateTable('catalogue_state')
    .set({ json_fingerprint: fingerprint })
    .where('id', '=', 1)
    .execute();
}

/**
 * Forgets every bundle's stored JSON (another encoder wrote it) and records the encoder whose
 * JSON comes next; pages encode the rows from their columns until it is stored again.
 */
export async function purgeBundleJson(trx: Executor, fingerprint: string): Promise<void> {
  await trx.updateTable('bundles').set({ item_json: null }).execute();
  await updateJsonFingerprint(trx, fingerprint);
  await bumpCatalogueVersion(trx);
}

async function bumpCatalogueVersion(trx: Executor): Promise<void> {
  // The transaction changes bundles: what it read of them before is read again.
  batchOf(trx)?.bundleReads.clear();
  await trx
    .updateTable('catalogue_state')
    .set((eb) => ({ version: eb('version', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

// Compiled once: this read runs on every catalogue request, and building the query each time
// would cost more than running it.
const VERSION_QUERY = CompiledQuery.raw('select version from catalogue_state where id = 1', []);

/** The catalogue version: it changes whenever any bundle is written. */
export async function catalogueVersion(db: Executor): Promise<number> {
  const result = await db.executeQuery<{ version: number }>(VERSION_QUERY);
  return Number(result.rows[0]?.version ?? 0);
}

export async function countBundles(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('bundles')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function listBundleNames(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('bundles').select('name').orderBy('name').execute();
  return rows.map((r) => r.name);
}

/** Names of bundles that inventory or eSIM assignments refer to: they must never be deleted. */
export async function referencedBundleNames(db: Executor): Promise<Set<string>> {
  const rows = await db
    .selectFrom('organisation_bundles')
    .select('bundle_name')
    .distinct()
    .union(db.selectFrom('assignments').select('bundle_name').distinct())
    .execute();
  return new Set(rows.map((r) => r.bundle_name));
}

export async function listAllBundles(db: Executor): Promise<Bundle[]> {
  const rows = await db.selectFrom('bundles').select(ROW_COLUMNS).orderBy('name').execute();
  return rows.map(bundleFromRow);
}

export type CatalogueOrder = 'name' | 'duration' | 'dataAmount' | 'price';

const ORDER_COLUMNS = {
  name: 'name',
  duration: 'duration',
  dataAmount: 'data_amount',
  price: 'price',
} as const;

export interface CatalogueFilter {
  /** Bundles must be in at least one of these groups (never empty). */
  readonly groups: readonly string[];
  /** ISO2 codes: at least one must be a base country. */
  readonly countries?: readonly string[];
  /** Lower-case region: a base country must be in it. */
  readonly region?: string;
  /** A LIKE pattern (escape character backslash) matched against the lower-cased description. */
  readonly descriptionLike?: string;
  /** A LIKE pattern (escape character backslash) matched against the lower-cased name. */
  readonly nameLike?: string;
  readonly orderBy: CatalogueOrder;
  readonly direction: 'asc' | 'desc';
  readonly limit: number;
  readonly offset: number;
}

/** The bundles a filter matches (no order, no page, no columns chosen yet). */
function matching(
  db: Executor,
  dialect: DialectName,
  filter: Pick<CatalogueFilter, 'groups' | 'countries' | 'region' | 'descriptionLike' | 'nameLike'>,
) {
  // Country and region filters drive the plan from the bundle_countries index; group visibility
  // is then probed per bundle (EXISTS on the bundle_groups primary key). On SQLite the group
  // names are compared on the bundle's few index rows (unary + keeps the index off that column):
  // otherwise it seeks the primary key once per group an organisation has, for every bundle.
  const { countries, region, descriptionLike, nameLike } = filter;
  const groupName = dialect === 'sqlite' ? sql<string>`+group_name` : sql<string>`group_name`;
  let query = db
    .selectFrom('bundles')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('bundle_groups')
          .select('bundle_name')
          .whereRef('bundle_groups.bundle_name', '=', 'bundles.name')
          .where(groupName, 'in', filter.groups),
      ),
    );
  if (countries !== undefined && countries.length > 0) {
    query = query.where('name', 'in', (eb) =>
      eb.selectFrom('bundle_countries').select('bundle_name').where('iso', 'in', countries),
    );
  }
  if (region !== undefined) {
    query = query.where('name', 'in', (eb) =>
      eb.selectFrom('bundle_countries').select('bundle_name').where('region', '=', region),
    );
  }
  if (descriptionLike !== undefined) {
    query = query.where(sql<boolean>`search_text like ${descriptionLike} escape '\\'`);
  }
  if (nameLike !== undefined) {
    // Names are ASCII (esim_1GB_7D_GB_V2): lower() folds them alike on both databases.
    query = query.where(sql<boolean>`lower(name) like ${nameLike} escape '\\'`);
  }
  return query;
}

/** The values of a page statement, by placeholder name (g0…, c0…, region, like). */
interface PageValues {
  readonly limit: number;
  readonly offset: number;
  [name: string]: string | number;
}

/** How many placeholders of each kind a filter needs, and what else shapes its SQL. */
function pageShape(dialect: DialectName, filter: CatalogueFilter): string {
  return [
    dialect,
    filter.groups.length,
    filter.countries?.length ?? 0,
    filter.region === undefined ? '' : 'r',
    filter.descriptionLike === undefined ? '' : 'd',
    filter.nameLike === undefined ? '' : 'n',
    filter.orderBy,
    filter.direction,
  ].join(' ');
}

function pageValues(filter: CatalogueFilter): PageValues {
  const values: { limit: number; offset: number; [name: string]: string | number } = {
    limit: filter.limit,
    offset: filter.offset,
  };
  filter.groups.forEach((group, i) => (values[`g${i}`] = group));
  filter.countries?.forEach((iso, i) => (values[`c${i}`] = iso));
  if (filter.region !== undefined) values['region'] = filter.region;
  if (filter.descriptionLike !== undefined) values['like'] = filter.descriptionLike;
  if (filter.nameLike !== undefined) values['nameLike'] = filter.nameLike;
  return values;
}

/** The names of one page with the total, for a filter read from placeholders. */
function pageQuery(db: Executor, dialect: DialectName, filter: CatalogueFilter, p: PageValues) {
  const groups = filter.groups.length;
  const countries = filter.countries?.length ?? 0;
  const named = (prefix: string, n: number): string[] =>
    Array.from({ length: n }, (_, i) => String(p[`${prefix}${i}`]));
  const query = matching(db, dialect, {
    groups: named('g', groups),
    ...(countries > 0 ? { countries: named('c', countries) } : {}),
    ...(filter.region !== undefined ? { region: String(p['region']) } : {}),
    ...(filter.descriptionLike !== undefined ? { descriptionLike: String(p['like']) } : {}),
    ...(filter.nameLike !== undefined ? { nameLike: String(p['nameLike']) } : {}),
  });
  const column = ORDER_COLUMNS[filter.orderBy];
  // Byte order on both databases: PostgreSQL would otherwise sort by its locale's rules.
  const byName = dialect === 'postgres' ? sql`name collate "C"` : sql`name`;
  // The page is chosen on narrow rows (name, the sort column and the total), so the sort never
  // carries the wide list columns; the page's rows are then read by primary key.
  let ordered = query
    .select(['name', sql<number>`count(*) over ()`.as('total')])
    // The sort column too, for the JSON page statement's outer order (name is there already).
    .$if(column !== 'name', (qb) => qb.select(column))
    .orderBy(column === 'name' ? byName : column, filter.direction);
  // Ties are broken by name so every page is stable.
  if (column !== 'name') ordered = ordered.orderBy(byName, 'asc');
  // The placeholders themselves, not numbers made of them: they become the parameters.
  return ordered.limit(p.limit).offset(p.offset);
}

/** The page statement of one shape: the same query as built per request, compiled once. */
function pageStatement(dialect: DialectName, filter: CatalogueFilter) {
  return compiledOnce((db, p: PageValues) => pageQuery(db, dialect, filter, p));
}

/**
 * The JSON page statement of one shape: the page chosen as by pageStatement, joined to its rows'
 * stored JSON, in the page's order.
 */
function jsonPageStatement(dialect: DialectName, filter: CatalogueFilter) {
  const column = ORDER_COLUMNS[filter.orderBy];
  return compiledOnce((db, p: PageValues) => {
    const byName = dialect === 'postgres' ? sql`p.name collate "C"` : sql`p.name`;
    let ordered = db
      .selectFrom(pageQuery(db, dialect, filter, p).as('p'))
      .innerJoin('bundles as b', 'b.name', 'p.name')
      // The name only where there is no JSON: 50 strings made for nothing cost as much as the
      // rest of the row.
      .select([
        sql<string | null>`case when b.item_json is null then b.name end`.as('name'),
        'b.item_json',
        'p.total',
      ])
      .orderBy(column === 'name' ? byName : sql.ref(`p.${column}`), filter.direction);
    if (column !== 'name') ordered = ordered.orderBy(byName, 'asc');
    return ordered;
  });
}

// Building and compiling the page query cost about a tenth of an uncached page's CPU: each shape
// of filter (how many groups and countries, region, description, order) is compiled once and
// then only its values change. Bounded: past the limit it starts over.
const PAGE_SHAPES_MAX = 500;

function byShape<S>(make: (dialect: DialectName, filter: CatalogueFilter) => S) {
  const statements = new Map<string, S>();
  return (dialect: DialectName, filter: CatalogueFilter): S => {
    const shape = pageShape(dialect, filter);
    let statement = statements.get(shape);
    if (statement === undefined) {
      statement = make(dialect, filter);
      if (statements.size >= PAGE_SHAPES_MAX) statements.clear();
      statements.set(shape, statement);
    }
    return statement;
  };
}

const pageStatementFor = byShape(pageStatement);
const jsonPageStatementFor = byShape(jsonPageStatement);

/** A bundle of a page: its stored JSON, or its name when it has none yet (see 016-bundle-json). */
export type CatalogueItemJson =
  | { readonly json: Buffer; readonly name?: undefined }
  | { readonly json: null; readonly name: string };

/**
 * One page of the catalogue as its bundles' stored JSON, with the number of bundles matching the
 * filter: one statement, which picks the page on narrow rows and then reads the page's JSON.
 */
export async function listCatalogueJson(
  db: Executor,
  dialect: DialectName,
  filter: CatalogueFilter,
): Promise<{ items: CatalogueItemJson[]; total: number }> {
  const { rows } = await jsonPageStatementFor(dialect, filter).execute(db, pageValues(filter));
  const first = rows[0];
  if (first !== undefined) {
    const items = rows.map((row): CatalogueItemJson =>
      row.item_json !== null ? { json: row.item_json } : { json: null, name: row.name ?? '' },
    );
    return { items, total: Number(first.total) };
  }
  return { items: [], total: await totalPastEnd(db, dialect, filter) };
}

/** The total of a page with no row to carry it: 0 on the first page, else counted. */
async function totalPastEnd(
  db: Executor,
  dialect: DialectName,
  filter: CatalogueFilter,
): Promise<number> {
  if (filter.offset === 0) return 0;
  const counted = await matching(db, dialect, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n);
}

/** One page of the catalogue and the number of bundles matching the filter. */
export async function listCatalogue(
  db: Executor,
  dialect: DialectName,
  filter: CatalogueFilter,
): Promise<{ rows: CatalogueRow[]; total: number }> {
  const page = (await pageStatementFor(dialect, filter).execute(db, pageValues(filter))).rows;
  const first = page[0];
  if (first !== undefined) {
    return {
      rows: await rowsInOrder(
        db,
        page.map((p) => p.name),
      ),
      total: Number(first.total),
    };
  }
  return { rows: [], total: await totalPastEnd(db, dialect, filter) };
}

/** The row statement for `n` names (a page is at most one chunk), compiled once per count. */
const rowStatements = new Map<number, ReturnType<typeof rowStatement>>();

function rowStatement(n: number) {
  return compiledOnce((db, p: Record<string, string>) =>
    db
      .selectFrom('bundles')
      .select(ROW_COLUMNS)
      .where(
        'name',
        'in',
        Array.from({ length: n }, (_, i) => String(p[`n${i}`])),
      ),
  );
}

/** The bundles with these names, in the order of the names (those that exist). */
export async function rowsInOrder(db: Executor, names: readonly string[]): Promise<CatalogueRow[]> {
  const byName = new Map<string, CatalogueRow>();
  for (const part of chunks(names)) {
    let statement = rowStatements.get(part.length);
    if (statement === undefined) {
      statement = rowStatement(part.length);
      rowStatements.set(part.length, statement);
    }
    const values: Record<string, string> = {};
    part.forEach((name, i) => (values[`n${i}`] = name));
    const { rows } = await statement.execute(db, values);
    for (const row of rows) byName.set(row.name, row);
  }
  const ordered: CatalogueRow[] = [];
  for (const name of names) {
    const row = byName.get(name);
    if (row !== undefined) ordered.push(row);
  }
  return ordered;
}

/** How many catalogue bundles each of the given groups holds (groups with none are left out). */
export async function countBundlesByGroup(
  db: Executor,
  groups: readonly string[],
): Promise<Map<string, number>> {
  if (groups.length === 0) return new Map();
  const rows = await db
    .selectFrom('bundle_groups')
    .select((eb) => ['group_name', eb.fn.countAll<number>().as('n')])
    .where('group_name', 'in', groups)
    .groupBy('group_name')
    .execute();
  return new Map(rows.map((r) => [r.group_name, Number(r.n)]));
}
