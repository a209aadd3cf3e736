import { Type } from '@sinclair/typebox';
import type { Static, TObject } from '@sinclair/typebox';
import { OrderList, OrderSchema } from '../../routes/orders/order-schema.js';
import type { Presenter } from '../presenter.js';
import { presenter } from '../presenter.js';
import type { OrderRead, PlacedOrderResult } from '../results.js';
import { without } from '../shapes/schema-tools.js';

// Orders on v2.1 to v2.3. v2.1: the spec's Order, money in minor units. v2.2: `assigned` for
// v2.1's extension field `assign`, a list wrapped as {orders: [...]}. v2.3: every line carries
// `iccids` (empty for inventory lines). v2.4 and v2.5 are in orders-v24.ts.

type OrderV21 = Static<typeof OrderSchema>;
type Line = OrderV21['order'][number];

/** The spec's Order of an order read back (or just placed). */
export function orderV21({ order, activations }: OrderRead): OrderV21 {
  return {
    order: order.items.map((i) => {
      const item: Line = {
        type: i.type,
        item: i.item,
        quantity: i.quantity,
        subTotal: i.subTotal,
        pricePerUnit: i.pricePerUnit,
      };
      if (!order.assign) return item;
      const esims = i.iccids.flatMap((iccid) => {
        const a = activations.get(iccid);
        return a === undefined
          ? []
          : [{ iccid: a.iccid, matchingId: a.matchingId, smdpAddress: a.smdpAddress }];
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

const lineV21 = OrderSchema.properties.order.items;

const LineV23 = Type.Object({
  ...lineV21.properties,
  iccids: Type.Array(Type.String(), {
    description: 'The eSIMs the units went onto, one per unit; empty for inventory lines.',
  }),
});

const base = without(OrderSchema, ['assign']).properties;
const assigned = Type.Boolean({ description: 'Whether the bundles were assigned to eSIMs.' });
const lines = <L extends TObject>(line: L) =>
  Type.Array(line, { description: 'The order lines, in request order.' });

export const OrderV22 = Type.Object(
  { ...base, order: lines(lineV21), assigned },
  { title: 'Order' },
);
export const OrderV23 = Type.Object(
  { ...base, order: lines(LineV23), assigned },
  { title: 'Order' },
);

export const orderListOf = <O extends TObject>(order: O) =>
  Type.Object({ orders: Type.Array(order, { description: 'One page of orders, newest first.' }) });

function orderV22(read: OrderRead): Static<typeof OrderV22> {
  const { assign, ...rest } = orderV21(read);
  return { ...rest, assigned: assign };
}

function orderV23(read: OrderRead): Static<typeof OrderV23> {
  const { assign, order, ...rest } = orderV21(read);
  return {
    ...rest,
    order: order.map((line) => ({ ...line, iccids: line.iccids ?? [] })),
    assigned: assign,
  };
}

/** The three order operations of a version. */
export interface OrderPresenters {
  readonly placeOrder: Presenter<PlacedOrderResult>;
  readonly getOrder: Presenter<OrderRead>;
  readonly listOrders: Presenter<readonly OrderRead[]>;
}

export const ORDERS_V21: OrderPresenters = {
  placeOrder: presenter(OrderSchema, (r: PlacedOrderResult) => orderV21(r.placed)),
  getOrder: presenter(OrderSchema, orderV21),
  listOrders: presenter(OrderList, (reads: readonly OrderRead[]) => reads.map(orderV21)),
};

/** From v2.2: the same operations around another order shape, the list as {orders: [...]}. */
export function laterOrders<S extends TObject>(
  schema: S,
  one: (read: OrderRead) => Static<S>,
): OrderPresenters {
  return {
    placeOrder: presenter(schema, (r: PlacedOrderResult) => one(r.placed)),
    getOrder: presenter(schema, one),
    listOrders: presenter(orderListOf(schema), (reads: readonly OrderRead[]) => ({
      orders: reads.map(one),
    })),
  };
}

export const ORDERS_V22 = laterOrders(OrderV22, orderV22);
export const ORDERS_V23 = laterOrders(OrderV23, orderV23);
