import { DomainError } from '../../domain/errors/error-codes.js';
import type { OrderRequest, OrderType } from '../../domain/orders/validation.js';
import { inPortalTerms } from '../messages.js';

// The Buy bundles form: one bundle, a quantity and where the units go (inventory, new eSIMs, or
// eSIMs the organisation has, one unit each). It becomes the same OrderRequest as a
// POST /v2.1/orders body, and the order rules' errors are shown next to the field they are about.

export const DESTINATIONS = ['inventory', 'new', 'existing'] as const;
export type Destination = (typeof DESTINATIONS)[number];

export interface BuyValues {
  readonly item: string;
  readonly quantity: string;
  readonly destination: string;
  readonly iccids: string;
}

export type BuyField = keyof BuyValues | 'form';
export type BuyErrors = Partial<Record<BuyField, string>>;

export const MAX_ICCIDS_TEXT = 20_000;

export function iccidList(text: string): string[] {
  return text.split(/[\s,;]+/).filter((s) => s !== '');
}

/** The order the form asks for, or the errors of its fields. */
export function buyRequest(
  values: BuyValues,
  type: OrderType,
): { request: OrderRequest } | { errors: BuyErrors } {
  const errors: BuyErrors = {};
  const item = values.item.trim();
  if (item === '') errors.item = 'Enter the name of a bundle from the catalogue';
  const destination = DESTINATIONS.find((d) => d === values.destination);
  if (destination === undefined) errors.destination = 'Choose where the bundles go';
  const iccids = iccidList(values.iccids);
  let quantity = Number(values.quantity.trim());
  if (destination === 'existing') {
    if (iccids.length === 0) errors.iccids = 'List the ICCIDs of the eSIMs to put the bundles on';
    quantity = iccids.length;
  } else if (!/^\d{1,6}$/.test(values.quantity.trim()) || quantity < 1) {
    errors.quantity = 'Quantity must be a whole number from 1';
  }
  if (Object.keys(errors).length > 0) return { errors };
  const line = { type: 'bundle', item, quantity };
  return {
    request: {
      type,
      assign: destination !== 'inventory',
      order: [destination === 'existing' ? { ...line, iccids } : line],
    },
  };
}

/** The field an order rule's 400 is about, so its message sits next to that field. */
export function buyErrorField(error: DomainError): BuyField {
  const m = error.message;
  switch (error.code) {
    case 'unknown_bundle':
      return 'item';
    case 'quantity_limit':
      return 'quantity';
    case 'insufficient_balance':
      return 'form';
    case 'invalid_iccid':
    case 'unknown_iccid':
      return 'iccids';
    default:
      if (m.includes('iccids') || m.includes('ICCID')) return 'iccids';
      if (m.includes('quantity')) return 'quantity';
      if (m.includes('.item') || m.includes('bundle')) return 'item';
      return 'form';
  }
}

export function buyErrors(error: unknown): BuyErrors | undefined {
  if (!(error instanceof DomainError) || error.status !== 400) return undefined;
  return { [buyErrorField(error)]: inPortalTerms(error) };
}
