import { Type } from '@sinclair/typebox';

// POST /inventory/refund's answer on v2.1 (each version presents its own,
// versions/presenters/money-answers.ts).

export const REFUND_STATUS = 'Successfully refunded bundles to balance';

export const RefundAnswer = Type.Object(
  {
    status: Type.String({ description: `"${REFUND_STATUS}", as the live service answers.` }),
    usageId: Type.Integer({ description: 'The inventory batch refunded from.' }),
    name: Type.String({ description: 'Bundle name.' }),
    quantity: Type.Integer({ description: 'Units refunded.' }),
    remaining: Type.Integer({ description: 'Unapplied units left in the batch.' }),
    orderReference: Type.String({ description: 'The order the units were bought in.' }),
    amount: Type.Integer({
      description:
        'Purchase price of the refunded units, minor units of the organisation currency.',
    }),
    refundedToBalance: Type.Integer({ description: 'Part of amount credited to the balance.' }),
    refundedToTestCredit: Type.Integer({
      description:
        'Part of amount credited back to test credit (the order paid it from test credit). Test ' +
        'credit that has expired since the order is not given back, so the two parts can sum to less than amount.',
    }),
    balance: Type.Integer({ description: 'Balance after the refund, minor units.' }),
    testCredit: Type.Integer({ description: 'Test credit after the refund, minor units.' }),
  },
  {
    title: 'InventoryRefundResult',
    description: 'The units left the inventory and their price went back to the organisation.',
  },
);
