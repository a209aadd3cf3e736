import type { Static } from '@sinclair/typebox';
import type { RefundResult } from '../../../domain/inventory/inventory-refund.js';
import type { TopUpResult } from '../../../domain/money/top-up.js';
import { REFUND_STATUS, RefundAnswer } from '../../routes/inventory/refund-schema.js';
import { TopUpAnswer } from '../../routes/organisation/top-up.js';
import { toMajor } from '../money.js';
import { presenter } from '../presenter.js';
import type { InCurrency } from '../results.js';
import { money, reshaped } from '../shapes/schema-tools.js';

// The top-up and the inventory refund: minor units on v2.1 to v2.3, major units from v2.4.

export const TOP_UP_V21 = presenter(TopUpAnswer, ({ result }: InCurrency<TopUpResult>) => ({
  amount: result.amount,
  balance: result.balance,
  ref: result.ref,
}));

export const TopUpV24 = reshaped(TopUpAnswer, {
  amount: money('Amount charged and credited'),
  balance: money('Balance after the top-up'),
});

export const TOP_UP_V24 = presenter(TopUpV24, ({ result, currency }: InCurrency<TopUpResult>) => ({
  amount: toMajor(result.amount, currency),
  balance: toMajor(result.balance, currency),
  ref: result.ref,
}));

export function refundV21(done: RefundResult): Static<typeof RefundAnswer> {
  return {
    status: REFUND_STATUS,
    usageId: done.usageId,
    name: done.bundle,
    quantity: done.quantity,
    remaining: done.remaining,
    orderReference: done.orderReference,
    amount: done.amount,
    refundedToBalance: done.toBalance,
    refundedToTestCredit: done.toTestCredit,
    balance: done.balance,
    testCredit: done.testCredit,
  };
}

export const REFUND_V21 = presenter(RefundAnswer, ({ result }: InCurrency<RefundResult>) =>
  refundV21(result),
);

export const RefundV24 = reshaped(RefundAnswer, {
  amount: money('Purchase price of the refunded units'),
  refundedToBalance: money('Part of amount credited to the balance'),
  refundedToTestCredit: money(
    'Part of amount credited back to test credit (the order paid it from test credit); test credit that has expired since the order is not given back, so the two parts can sum to less than amount',
  ),
  balance: money('Balance after the refund'),
  testCredit: money('Test credit after the refund'),
});

export const REFUND_V24 = presenter(RefundV24, ({ result, currency }: InCurrency<RefundResult>) => {
  const major = (minor: number) => toMajor(minor, currency);
  return {
    ...refundV21(result),
    amount: major(result.amount),
    refundedToBalance: major(result.toBalance),
    refundedToTestCredit: major(result.toTestCredit),
    balance: major(result.balance),
    testCredit: major(result.testCredit),
  };
});
