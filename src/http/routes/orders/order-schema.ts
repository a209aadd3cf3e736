import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { PlacedOrder } from '../../../domain/orders/placement.js';
import type { EsimActivation, StoredOrder } from '../../../store/repositories/order-repository.js';

// The spec's Order, shared by POST /orders, GET /orders/{orderReference} and GET /orders.

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

export type OrderBody = Static<typeof OrderSchema>;

export function orderBody(
  order: StoredOrder,
  activations: ReadonlyMap<string, EsimActivation>,
): OrderBody {
  return {
    order: order.items.map((i) => {
      const item = {
        type: i.type,
        item: i.item,
        quantity: i.quantity,
        subTotal: i.subTotal,
        pricePerUnit: i.pricePerUnit,
      };
      if (!order.assign) return item;
      const esims = i.iccids.flatMap((iccid) => {
        const a = activations.get(iccid);
        return a === undefined ? [] : [a];
      });
      return { ...item, iccids: i.iccids, esims };
    }),
    total: order.total,
    currency: order.currency,
    status: order.status,
    statusMessage: order.statusMessage,
    orderReference: order.reference,
    createDate: order.createdAt,
    assign: order.assign,
  };
}

export const placedOrderBody = (placed: PlacedOrder): OrderBody =>
  orderBody(placed.order, placed.activations);
