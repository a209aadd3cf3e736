import type { Bundle } from './bundle.js';
import type { BundleField, RawBundle } from './bundle-input.js';
import { BUNDLE_FIELDS, REQUIRED_FIELDS, checkBundle } from './bundle-input.js';
import { CsvSyntaxError, parseCsv } from './csv.js';

// Reads a catalogue file (JSON or CSV, docs/catalogue.md) into bundles. Every bad row is
// reported with its line number; the caller imports nothing when there is any.

export type CatalogueFormat = 'json' | 'csv';

export interface ParsedCatalogue {
  readonly bundles: Bundle[];
  /** "line 12: esim_1GB_7D_XX_V2: countries: unknown country code "XX"", one per problem. */
  readonly errors: string[];
}

interface Row {
  readonly line: number;
  readonly raw: RawBundle;
}

export function formatFromFileName(path: string): CatalogueFormat | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  return undefined;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i += 1) if (text[i] === '\n') line += 1;
  return line;
}

/** Start line of each element of the top-level JSON array (the text is known to be valid JSON). */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectElement = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\n') line += 1;
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    if (depth === 1 && expectElement && c !== ']') {
      lines.push(line);
      expectElement = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth += 1;
      if (depth === 1) expectElement = true;
    } else if (c === ']' || c === '}') depth -= 1;
    else if (c === ',' && depth === 1) expectElement = true;
  }
  return lines;
}

function jsonRows(text: string, errors: string[]): Row[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const position = /position (\d+)/.exec(message);
    const where = position?.[1] === undefined ? '' : `line ${lineAt(text, Number(position[1]))}: `;
    errors.push(`${where}not valid JSON: ${message}`);
    return [];
  }
  if (!Array.isArray(data)) {
    errors.push('line 1: the file must hold a JSON array of bundles');
    return [];
  }
  const lines = elementLines(text);
  const rows: Row[] = [];
  data.forEach((item: unknown, index) => {
    const line = lines[index] ?? 1;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors.push(`line ${line}: bundle ${index + 1} is not an object`);
      return;
    }
    const unknown = Object.keys(item).filter(
      (k) => !(BUNDLE_FIELDS as readonly string[]).includes(k) && !DERIVED_FIELDS.has(k),
    );
    if (unknown.length > 0) {
      errors.push(`line ${line}: unknown field ${unknown.map((k) => `"${k}"`).join(', ')}`);
      return;
    }
    rows.push({ line, raw: item as RawBundle });
  });
  return rows;
}

// Fields the API derives for every bundle (the catalogue's own output, `esim catalogue list
// --json`, carries them): accepted on import and ignored.
const DERIVED_FIELDS = new Set(['billingType']);

const LIST_FIELDS = new Set<BundleField>(['groups', 'countries', 'roamingEnabled', 'speed']);
const INTEGER_FIELDS = new Set<BundleField>(['dataAmount', 'duration', 'price']);
const BOOLEAN_FIELDS = new Set<BundleField>(['autostart', 'unlimited']);
const TRUE = new Set(['true', 'yes', '1']);
const FALSE = new Set(['false', 'no', '0']);

/** A CSV cell as the value JSON would have given; what does not convert stays a string. */
function csvValue(field: BundleField, cell: string): unknown {
  const value = cell.trim();
  if (value === '') return undefined;
  if (LIST_FIELDS.has(field)) {
    return value
      .split(/[;|]/)
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }
  if (INTEGER_FIELDS.has(field)) return /^-?\d+$/.test(value) ? Number(value) : value;
  if (BOOLEAN_FIELDS.has(field)) {
    const lower = value.toLowerCase();
    return TRUE.has(lower) ? true : FALSE.has(lower) ? false : value;
  }
  return value;
}

function csvRows(text: string, errors: string[]): Row[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError) {
      errors.push(`line ${error.line}: ${error.message}`);
      return [];
    }
    throw error;
  }
  const [header, ...body] = records;
  if (header === undefined) return [];
  const byLower = new Map(BUNDLE_FIELDS.map((f) => [f.toLowerCase(), f]));
  const columns: BundleField[] = [];
  for (const cell of header.fields) {
    const field = byLower.get(cell.trim().toLowerCase());
    if (field === undefined) {
      errors.push(
        `line ${header.line}: unknown column "${cell.trim()}"; columns are ${BUNDLE_FIELDS.join(', ')}`,
      );
      return [];
    }
    if (columns.includes(field)) {
      errors.push(`line ${header.line}: column "${field}" appears twice`);
      return [];
    }
    columns.push(field);
  }
  const missing = REQUIRED_FIELDS.filter((f) => !columns.includes(f));
  if (missing.length > 0) {
    errors.push(`line ${header.line}: missing column ${missing.join(', ')}`);
    return [];
  }
  const rows: Row[] = [];
  for (const record of body) {
    if (record.fields.length !== columns.length) {
      errors.push(
        `line ${record.line}: ${record.fields.length} fields where the header has ${columns.length}`,
      );
      continue;
    }
    const raw: RawBundle = {};
    columns.forEach((field, i) => {
      raw[field] = csvValue(field, record.fields[i] ?? '');
    });
    rows.push({ line: record.line, raw });
  }
  return rows;
}

export function parseCatalogue(text: string, format: CatalogueFormat): ParsedCatalogue {
  const errors: string[] = [];
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const rows = format === 'json' ? jsonRows(source, errors) : csvRows(source, errors);
  const bundles: Bundle[] = [];
  const firstLine = new Map<string, number>();
  for (const { line, raw } of rows) {
    const checked = checkBundle(raw);
    const label =
      typeof raw.name === 'string' && raw.name.trim() !== '' ? `${raw.name.trim()}: ` : '';
    if (checked.problems !== undefined) {
      for (const problem of checked.problems) errors.push(`line ${line}: ${label}${problem}`);
      continue;
    }
    const seen = firstLine.get(checked.bundle.name);
    if (seen !== undefined) {
      errors.push(`line ${line}: ${label}name: duplicates the bundle on line ${seen}`);
      continue;
    }
    firstLine.set(checked.bundle.name, line);
    bundles.push(checked.bundle);
  }
  if (errors.length === 0 && bundles.length === 0) errors.push('the file holds no bundles');
  return { bundles, errors };
}
