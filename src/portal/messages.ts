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

const INSUFFICIENT =
  /^insufficient balance: the order total is (\d+) ([A-Z]{3}) minor units but only (\d+) is available \(balance (\d+), test credit (\d+)\)$/;

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function inPortalTerms(message: string): string {
  const funds = INSUFFICIENT.exec(message);
  if (funds !== null) {
    const [, total = '0', currency = 'USD', available = '0', balance = '0', credit = '0'] = funds;
    const money = (minor: string) => formatMoney(Number(minor), currency);
    const parts =
      Number(credit) > 0 ? ` (balance ${money(balance)}, test credit ${money(credit)})` : '';
    return (
      `Not enough funds: this order costs ${money(total)} and ${money(available)} is available` +
      `${parts}. Top up on the Billing page.`
    );
  }
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
