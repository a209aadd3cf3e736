import { Type } from '@sinclair/typebox';
import { pagingHeaders } from '../../paging.js';

// The spec's Order, shared by POST /orders, GET /orders/{orderReference} and GET /orders (v2.1's
// answers; each version presents its own, versions/presenters/orders.ts).

const OrderEsim = Type.Object({
  iccid: Type.String({ description: 'ICCID: 19 digits, prefix 89, Luhn check digit.' }),
  matchingId: Type.String({ description: 'Activation matching id, e.g. ABCDE-FGHIJ-KLMNO-PQRST.' }),
  smdpAddress: Type.String({ description: 'SM-DP+ host name of the activation code.' }),
});

const OrderItem = Type.Object({
  type: Type.String({ description: 'Always `bundle`.' }),
  item: Type.String({ description: 'Bundle name as in the catalogue (case-sensitive).' }),
  quantity: Type.Integer({ description: 'Units of the bundle.' }),
  subTotal: Type.Integer({ description: 'pricePerUnit x quantity, in minor units.' }),
  pricePerUnit: Type.Integer({
    description: 'Catalogue price when ordered, in minor units of the organisation currency.',
  }),
  iccids: Type.Optional(
    Type.Array(Type.String(), {
      description: 'assign: true only. The eSIMs the units went onto, one per unit.',
    }),
  ),
  esims: Type.Optional(
    Type.Array(OrderEsim, {
      description: 'assign: true only. Activation details of those eSIMs, one per unit.',
    }),
  ),
});

export const OrderSchema = Type.Object(
  {
    order: Type.Array(OrderItem, { description: 'The order lines, in request order.' }),
    total: Type.Integer({ description: 'Sum of the subTotals, in minor units.' }),
    currency: Type.String({ description: 'ISO 4217 currency of every money field.' }),
    status: Type.String({
      description: '`completed` (type transaction) or `validated` (type validate).',
    }),
    statusMessage: Type.String({ description: 'Human-readable outcome.' }),
    orderReference: Type.String({
      description: 'UUID of the order; empty for type validate, which stores nothing.',
    }),
    createDate: Type.String({ description: 'When the order was placed, RFC 3339 UTC.' }),
    assign: Type.Boolean({
      description: 'Extension field: whether the bundles were assigned to eSIMs.',
    }),
  },
  { title: 'Order' },
);

/** GET /orders on v2.1: a bare array of orders, paging in the headers. */
export const OrderList = Type.Array(OrderSchema, {
  description: 'One page of orders, newest first.',
  headers: pagingHeaders('Number of orders over all pages.'),
});
