import { countryView } from '../../../domain/catalogue/catalogue-view.js';
import type { CatalogueItemJson, CatalogueRow } from '../../../domain/catalogue/catalogue-reads.js';

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

function memo<T>(write: (stored: string) => T): (stored: string) => T {
  const written = new Map<string, T>();
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

// Country lists are kept as UTF-8 bytes. They hold the page's non-ASCII text (Réunion, Curaçao,
// Åland...), and one non-ASCII character sends the encoding of a whole string down V8's slow
// path: encoding a 72 kB page as one string cost about 100 µs, more than writing it. So each
// list is encoded once per process and the page is put together from bytes.
const countries = memo((stored) => {
  const codes = JSON.parse(stored) as string[];
  let out = '[';
  for (let i = 0; i < codes.length; i += 1) {
    if (i > 0) out += ',';
    out += country(codes[i] ?? '');
  }
  return Buffer.from(out + ']');
});

/** A list column as stored (JSON text of strings), written back canonically. */
const list = memo((stored) => JSON.stringify(JSON.parse(stored) as string[]));

/** Appends a bundle's JSON to `parts`; returns the number of bytes appended. */
function bundleBytes(row: CatalogueRow, first: boolean, parts: Buffer[]): number {
  const unlimited = Number(row.unlimited) === 1;
  const own = countries(row.countries);
  const roaming = countries(row.roaming);
  const head = Buffer.from(
    (first ? '' : ',') +
      `{"name":${JSON.stringify(row.name)}` +
      `,"description":${JSON.stringify(row.description)}` +
      `,"groups":${list(row.groups)}` +
      `,"countries":`,
  );
  const middle = Buffer.from(
    `,"dataAmount":${unlimited ? -1 : Number(row.data_amount)}` +
      `,"duration":${Number(row.duration)}` +
      `,"speed":${list(row.speed)}` +
      `,"autostart":${Number(row.autostart) === 1}` +
      `,"unlimited":${unlimited}` +
      `,"roamingEnabled":`,
  );
  const tail = Buffer.from(`,"price":${Number(row.price)},"billingType":"FixedCost"}`);
  parts.push(head, own, middle, roaming, tail);
  return head.length + own.length + middle.length + roaming.length + tail.length;
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');

/** The JSON array of a catalogue page as UTF-8 bytes, as GET /catalogue answers it. */
export function cataloguePageBytes(rows: readonly CatalogueRow[]): Buffer {
  const parts: Buffer[] = [OPEN];
  let length = OPEN.length + CLOSE.length;
  let first = true;
  for (const row of rows) {
    length += bundleBytes(row, first, parts);
    first = false;
  }
  parts.push(CLOSE);
  return Buffer.concat(parts, length);
}

/** The same page as text. */
export function cataloguePageJson(rows: readonly CatalogueRow[]): string {
  return cataloguePageBytes(rows).toString('utf8');
}

/**
 * The JSON of each bundle of a page: its stored JSON (bundles.item_json, the same bytes
 * bundleBytes writes), or for a bundle without it, written from its row, which `rows` gives by
 * name. A bundle deleted between the page's statement and its row's is left out.
 */
export function pageItems(
  items: readonly CatalogueItemJson[],
  rows: ReadonlyMap<string, CatalogueRow>,
): Buffer[] {
  const out: Buffer[] = [];
  for (const item of items) {
    if (item.json !== null) {
      out.push(item.json);
      continue;
    }
    const row = rows.get(item.name);
    if (row === undefined) continue;
    const parts: Buffer[] = [];
    const length = bundleBytes(row, true, parts);
    out.push(Buffer.concat(parts, length));
  }
  return out;
}

/** The JSON array of a page's bundles (each one's JSON, from pageItems), as v2.1 answers it. */
export function catalogueArray(items: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [OPEN];
  let length = OPEN.length + CLOSE.length;
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i] as Buffer;
    if (i > 0) {
      parts.push(COMMA);
      length += COMMA.length;
    }
    parts.push(item);
    length += item.length;
  }
  parts.push(CLOSE);
  return Buffer.concat(parts, length);
}
