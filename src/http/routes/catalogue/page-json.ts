import { countryView } from '../../../domain/catalogue/view.js';
import type { CatalogueRow } from '../../../store/repositories/catalogue-repository.js';

// A catalogue page serialised straight from its rows: no Bundle, no CatalogueItem and no Country
// objects in between, and each country's JSON written once per process. The bytes are exactly
// JSON.stringify of catalogueItem(bundleFromRow(row)) for each row, which is what the route's
// response schema (BundleSchema, same field order) produces; page-json.test.ts holds it to that
// over the whole built-in catalogue.

const countryJson = new Map<string, string>();

function country(iso: string): string {
  let json = countryJson.get(iso);
  if (json === undefined) {
    const view = countryView(iso);
    json = JSON.stringify({ name: view.name, region: view.region, iso: view.iso });
    countryJson.set(iso, json);
  }
  return json;
}

// A list column's JSON is a function of its stored text alone, and a catalogue holds few distinct
// lists (one country, a region's countries, the same speeds and groups again and again): each is
// parsed and written once, not once per bundle per page. Bounded: past the limit it starts over.
const FRAGMENTS_MAX = 10_000;

function memo(write: (stored: string) => string): (stored: string) => string {
  const written = new Map<string, string>();
  return (stored) => {
    let json = written.get(stored);
    if (json === undefined) {
      json = write(stored);
      if (written.size >= FRAGMENTS_MAX) written.clear();
      written.set(stored, json);
    }
    return json;
  };
}

const countries = memo((stored) => {
  const codes = JSON.parse(stored) as string[];
  let out = '[';
  for (let i = 0; i < codes.length; i += 1) {
    if (i > 0) out += ',';
    out += country(codes[i] ?? '');
  }
  return out + ']';
});

/** A list column as stored (JSON text of strings), written back canonically. */
const list = memo((stored) => JSON.stringify(JSON.parse(stored) as string[]));

function bundleJson(row: CatalogueRow): string {
  const unlimited = Number(row.unlimited) === 1;
  return (
    `{"name":${JSON.stringify(row.name)}` +
    `,"description":${JSON.stringify(row.description)}` +
    `,"groups":${list(row.groups)}` +
    `,"countries":${countries(row.countries)}` +
    `,"dataAmount":${unlimited ? -1 : Number(row.data_amount)}` +
    `,"duration":${Number(row.duration)}` +
    `,"speed":${list(row.speed)}` +
    `,"autostart":${Number(row.autostart) === 1}` +
    `,"unlimited":${unlimited}` +
    `,"roamingEnabled":${countries(row.roaming)}` +
    `,"price":${Number(row.price)}` +
    `,"billingType":"FixedCost"}`
  );
}

/** The JSON array of a catalogue page, as GET /catalogue answers it. */
export function cataloguePageJson(rows: readonly CatalogueRow[]): string {
  let out = '[';
  for (let i = 0; i < rows.length; i += 1) {
    const row = rows[i];
    if (row === undefined) continue;
    if (i > 0) out += ',';
    out += bundleJson(row);
  }
  return out + ']';
}
