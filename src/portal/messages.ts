import type { DomainError } from '../domain/errors/error-codes.js';
import { InsufficientBalance } from '../domain/money/ledger.js';
import { formatMoney } from './format.js';

// The API's messages in the portal's terms: the field a message is about is named by the label
// the page gives it (not `order[0].item` or `query parameter countries`), and money is shown as
// money, not as minor units. The page already shows the message next to its field.

const FIELD_LABELS: Readonly<Record<string, string>> = {
  item: 'Bundle',
  quantity: 'Quantity',
  iccids: 'ICCIDs',
  countries: 'Countries',
  description: 'Description',
  region: 'Region',
  group: 'Group',
  page: 'Page',
};

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function notEnoughFunds(error: InsufficientBalance): string {
  const money = (minor: number) => formatMoney(minor, error.currency);
  const parts =
    error.testCredit > 0
      ? ` (balance ${money(error.balance)}, test credit ${money(error.testCredit)})`
      : '';
  return (
    `Not enough funds: this order costs ${money(error.amount)} and ${money(error.available)} is ` +
    `available${parts}. Top up on the Billing page.`
  );
}

export function inPortalTerms(error: DomainError): string {
  if (error instanceof InsufficientBalance) return notEnoughFunds(error);
  // The same refusal replayed under its idempotency key carries the code, not the figures.
  if (error.code === 'insufficient_balance') {
    return 'Not enough funds for this order. Top up on the Billing page.';
  }
  const { message } = error;
  const named =
    /^(?:order\[\d+\]\.|query parameter |body\.)([A-Za-z]+)(?:\[\d+\])?(:?) (.*)$/s.exec(message) ??
    /^([a-z]+)(:) (.*)$/s.exec(message);
  const label = FIELD_LABELS[named?.[1] ?? ''];
  if (named !== null && label !== undefined) {
    const rest = named[3] ?? '';
    if (named[2] === '') return `${label} ${rest}`;
    // 'Bundle: bundle "x" is not available' says the field twice: 'Bundle "x" is not available'.
    const repeats = rest.toLowerCase().startsWith(`${label.toLowerCase()} `);
    return repeats ? capitalised(rest) : `${label}: ${rest}`;
  }
  return capitalised(message);
}
