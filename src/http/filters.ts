import { badRequest } from '../domain/errors/error-codes.js';

// Filter operators of the list routes from v2.2 (the live changelog: "time and number fields take
// eq, lt, lte, gt, gte, default eq, e.g. gte:1; string fields eq, default like"). A condition is
// `<operator>:<value>` or a bare value (the field's default). Versions that have them turn the
// switch `filterOperators` on; v2.1 reads its values as it always did.

export const OPERATORS = ['eq', 'lt', 'lte', 'gt', 'gte'] as const;
export type Operator = (typeof OPERATORS)[number];

const isOperator = (word: string): word is Operator =>
  (OPERATORS as readonly string[]).includes(word);

/** A leading `word:` that is not part of a time (`2024-01-01T10:00` has none before a digit). */
const PREFIX = /^([A-Za-z]+):(.*)$/s;

/** A time, RFC 3339 with a zone (up to nanoseconds, as live writes them), or a date. */
const TIME =
  /^(\d{4})-(\d\d)-(\d\d)(?:[Tt ](\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?([Zz]|[+-]\d\d:\d\d))?$/;

/** An inclusive range of milliseconds since the epoch; either end may be open. */
export interface TimeRange {
  readonly from?: number;
  readonly to?: number;
}

/** The milliseconds a time value stands for: one for a time, a whole UTC day for a date. */
function timeSpan(field: string, value: string): { start: number; end: number } {
  const m = TIME.exec(value);
  const start =
    m === null ? Number.NaN : Date.parse(m[4] === undefined ? `${value}T00:00:00Z` : value);
  // Date.parse accepts 2024-02-30; the round trip of the date part refuses it.
  const day = m === null ? '' : `${m[1]}-${m[2]}-${m[3]}`;
  if (
    m === null ||
    Number.isNaN(start) ||
    (m[4] === undefined && new Date(start).toISOString().slice(0, 10) !== day)
  ) {
    throw badRequest(
      `query parameter ${field}: "${value.slice(0, 60)}" is not a time; use RFC 3339 (2024-01-31T23:59:59Z) or a date (2024-01-31), optionally after an operator (gte:2024-01-01)`,
    );
  }
  return m[4] === undefined ? { start, end: start + 86_400_000 - 1 } : { start, end: start };
}

/**
 * The range a time field's conditions select together (AND): `eq` (the default), `lt`, `lte`,
 * `gt`, `gte`, each followed by a time or a date (a date is its whole day, in UTC). An unknown
 * operator or a value that is not a time is a 400 naming the field. A range that selects nothing
 * has `from` after `to`.
 */
export function timeRange(field: string, conditions: readonly string[]): TimeRange {
  let from: number | undefined;
  let to: number | undefined;
  const raise = (bound: number) => (from = from === undefined ? bound : Math.max(from, bound));
  const lower = (bound: number) => (to = to === undefined ? bound : Math.min(to, bound));
  for (const raw of conditions) {
    const prefixed = PREFIX.exec(raw.trim());
    const word = prefixed?.[1]?.toLowerCase() ?? 'eq';
    if (!isOperator(word)) {
      throw badRequest(
        `query parameter ${field}: unknown operator "${word.slice(0, 20)}"; use one of ${OPERATORS.join(', ')} (e.g. ${field}=gte:2024-01-01T00:00:00Z)`,
      );
    }
    const span = timeSpan(field, (prefixed?.[2] ?? raw).trim());
    if (word === 'eq' || word === 'gte') raise(span.start);
    if (word === 'eq' || word === 'lte') lower(span.end);
    if (word === 'gt') raise(span.end + 1);
    if (word === 'lt') lower(span.start - 1);
  }
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/**
 * A text field's condition: `eq:<text>` is an exact match; a bare value keeps the field's own
 * matching (a description matches as a pattern). Order operators do not apply to text: a 400.
 * Any other `word:` is part of the text.
 */
export function textCondition(field: string, raw: string): { exact: boolean; value: string } {
  const prefixed = PREFIX.exec(raw);
  const word = prefixed?.[1]?.toLowerCase();
  if (word === undefined || !isOperator(word)) return { exact: false, value: raw };
  if (word !== 'eq') {
    throw badRequest(
      `query parameter ${field}: the operator ${word} does not apply to text; use eq:<text> for an exact match, or the text alone`,
    );
  }
  return { exact: true, value: prefixed?.[2] ?? '' };
}

/** The times a stored RFC 3339 string can hold: four-digit years, compared byte-wise. */
const EARLIEST_STORED = Date.parse('0000-01-01T00:00:00.000Z');
const LATEST_STORED = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A time range as the RFC 3339 UTC bounds rows store; `empty` when it selects nothing. Bounds are
 * kept within the four-digit years (`toISOString` writes others as `+010000-…` or `-000001-…`,
 * which would sort on the wrong side of every stored time).
 */
export function storedBounds(range: TimeRange): { from?: string; to?: string; empty: boolean } {
  const iso = (ms: number) => new Date(ms).toISOString();
  const from = range.from === undefined ? undefined : Math.max(range.from, EARLIEST_STORED);
  const to = range.to === undefined ? undefined : Math.min(range.to, LATEST_STORED);
  const empty =
    (from !== undefined && from > LATEST_STORED) ||
    (to !== undefined && to < EARLIEST_STORED) ||
    (from !== undefined && to !== undefined && from > to);
  if (empty) return { empty };
  return {
    ...(from === undefined ? {} : { from: iso(from) }),
    ...(to === undefined ? {} : { to: iso(to) }),
    empty,
  };
}

/**
 * A text condition on a column read through an index (GET /esims): the values from `from` (and
 * to `to`, or below `below`), compared byte-wise, and, when not every value in that range
 * matches, the check to make on each.
 */
export interface IndexedText {
  readonly from: string;
  readonly to?: string;
  readonly below?: string;
  /** Checked on each value, whole, `*` matching any run of characters (see indexedText). */
  readonly pattern?: string;
}

/**
 * `eq:<text>` is the whole value; a bare text is a prefix (the value starts with it); `*` in it
 * matches any run of characters, and a `*` before the end makes the pattern match the whole value
 * (`*-42` ends with -42, `ACME*42` starts with ACME and ends with 42, as the catalogue's `*`
 * does). Matching is exact (case-sensitive); `%`, `_` and `?` are ordinary characters. An index
 * serves the text before the first `*` as a range; only what follows it is checked value by
 * value.
 */
export function indexedText(field: string, raw: string): IndexedText {
  const { exact, value } = textCondition(field, raw);
  if (value === '') {
    throw badRequest(`query parameter ${field}: give the text to match after eq:`);
  }
  if (exact) return { from: value, to: value };
  const star = value.indexOf('*');
  const head = star === -1 ? value : value.slice(0, star);
  const range = prefixRange(head);
  if (star === -1 || /^\*+$/.test(value.slice(star))) return range;
  return { ...range, pattern: value };
}

/** The values starting with `prefix`, in byte-wise (code point) order; every value when empty. */
function prefixRange(prefix: string): IndexedText {
  // The first string after every one starting with the prefix: its last code point raised by
  // one (trailing U+10FFFF, the highest, dropped first); none when nothing is left.
  const points = [...prefix];
  while (points.at(-1) === '\u{10FFFF}') points.pop();
  const last = points.pop();
  if (last === undefined) return { from: prefix };
  const code = (last.codePointAt(0) ?? 0) + 1;
  // UTF-8 has no surrogates: after U+D7FF comes U+E000.
  const raised = String.fromCodePoint(code === 0xd800 ? 0xe000 : code);
  return { from: prefix, below: points.join('') + raised };
}
