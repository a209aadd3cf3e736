import type { Config } from '../../config.js';
import { badRequest } from '../errors/error-codes.js';
import { checkIccid } from '../esims/owned-esim.js';

// The rules an order request must meet before anything is looked up: line types, quantities
// (per line and per order, from config), and the `iccids` rules of assign: true.

export type OrderType = 'validate' | 'transaction';

export interface OrderLineInput {
  readonly type: string;
  readonly item: string;
  readonly quantity: number;
  readonly iccids?: readonly string[];
  readonly allowReassign?: boolean;
}

export interface OrderRequest {
  readonly type: OrderType;
  readonly assign: boolean;
  readonly order: readonly OrderLineInput[];
}

export type OrderLimits = Pick<
  Config,
  'orderMaxLines' | 'orderMaxQuantityPerLine' | 'orderMaxQuantityPerOrder'
>;

export function checkOrderRequest(request: OrderRequest, limits: OrderLimits): void {
  const lines = request.order;
  if (lines.length === 0) throw badRequest('order must contain at least one line');
  if (lines.length > limits.orderMaxLines) {
    throw badRequest(`order may contain at most ${limits.orderMaxLines} lines`);
  }
  let units = 0;
  lines.forEach((line, i) => {
    const at = `order[${i}]`;
    if (line.type !== 'bundle') throw badRequest(`${at}.type must be bundle`);
    if (line.item.trim() === '') throw badRequest(`${at}.item must name a bundle`);
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1) {
      throw badRequest(`${at}.quantity must be a whole number of at least 1`);
    }
    if (line.quantity > limits.orderMaxQuantityPerLine) {
      throw badRequest(
        `${at}.quantity must be at most ${limits.orderMaxQuantityPerLine} per line`,
        'quantity_limit',
      );
    }
    units += line.quantity;
    if (line.iccids === undefined) return;
    if (!request.assign) {
      throw badRequest(`${at}.iccids is only allowed with assign: true`);
    }
    if (line.iccids.length !== line.quantity) {
      throw badRequest(
        `${at}.iccids lists ${line.iccids.length} eSIMs but quantity is ${line.quantity}; they must match`,
      );
    }
    line.iccids.forEach((iccid, j) => checkIccid(iccid, `${at}.iccids[${j}]`));
  });
  if (units > limits.orderMaxQuantityPerOrder) {
    throw badRequest(
      `order quantity totals ${units}; at most ${limits.orderMaxQuantityPerOrder} units per order`,
      'quantity_limit',
    );
  }
}
