import { Readable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { LedgerEntry } from '../../domain/money/money-reads.js';

// The ledger as CSV, oldest entry first, streamed in chunks so a long journal never sits in
// memory whole. Amounts are decimal in the currency's major unit (10.50, not 1050) with the
// currency in its own column; times are RFC 3339 UTC, for spreadsheets and scripts alike.

export const LEDGER_CSV_COLUMNS = [
  'entry',
  'date',
  'kind',
  'description',
  'reference',
  'currency',
  'amount',
  'balance',
  'testCreditChange',
  'testCredit',
] as const;

function decimal(minor: number, digits: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (digits === 0) return `${sign}${abs}`;
  const scale = 10 ** digits;
  return `${sign}${Math.floor(abs / scale)}.${String(abs % scale).padStart(digits, '0')}`;
}

/** The entries (ledgerInOrder, domain/money/money-reads.ts) as CSV. */
export function ledgerCsv(entries: AsyncIterable<LedgerEntry>, currency: string): Readable {
  const digits =
    new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions()
      .maximumFractionDigits ?? 2;
  const rows = async function* () {
    for await (const e of entries) {
      yield {
        entry: e.id,
        date: e.createdAt,
        kind: e.kind,
        description: e.description,
        reference: e.reference,
        currency,
        amount: decimal(e.balanceDelta, digits),
        balance: decimal(e.balanceAfter, digits),
        testCreditChange: decimal(e.testCreditDelta, digits),
        testCredit: decimal(e.testCreditAfter, digits),
      };
    }
  };
  const csv = stringify({ header: true, columns: [...LEDGER_CSV_COLUMNS] });
  // A read error ends the download early; pipeline destroys both streams, so the client sees a
  // cut response rather than a silently short file.
  pipeline(Readable.from(rows()), csv, () => undefined);
  return csv;
}
