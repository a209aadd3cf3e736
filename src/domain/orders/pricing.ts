import type { Bundle } from '../catalogue/bundle.js';
import { badRequest } from '../errors/error-codes.js';
import type { OrderLineInput } from './validation.js';

// Prices come from the catalogue at the moment the order is placed: pricePerUnit is the bundle
// price, subTotal = pricePerUnit x quantity, total = the sum of the lines. All in minor units.

export interface PricedLine {
  readonly lineNo: number;
  readonly input: OrderLineInput;
  readonly bundle: Bundle;
  readonly pricePerUnit: number;
  readonly subTotal: number;
}

export function priceLines(
  lines: readonly OrderLineInput[],
  bundles: ReadonlyMap<string, Bundle>,
): { lines: PricedLine[]; total: number } {
  let total = 0;
  const priced = lines.map((input, i) => {
    const bundle = bundles.get(input.item);
    if (bundle === undefined) throw new Error(`bundle ${input.item} was not resolved`);
    const subTotal = bundle.price * input.quantity;
    total += subTotal;
    return { lineNo: i, input, bundle, pricePerUnit: bundle.price, subTotal };
  });
  if (!Number.isSafeInteger(total)) throw badRequest('order total is too large');
  return { lines: priced, total };
}
