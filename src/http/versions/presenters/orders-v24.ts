import { Type } from '@sinclair/typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import { toMajor } from '../money.js';
import { presenter } from '../presenter.js';
import type { OrderRead, PlacedOrderResult } from '../results.js';
import { money } from '../shapes/schema-tools.js';
import type { OrderPresenters } from './orders.js';
import { orderListOf } from './orders.js';

// Orders on v2.4 and v2.5: money in major units, `createdDate`, `valid` on a validation,
// `AllowReassign`, `sourceIP` (POST answers), `esims` and `iccids` on every placed line.
// v2.5: `runningBalance`, the balance the order's payment left, in major units like `total`.

const OrderEsim = Type.Object({
  iccid: Type.String({ description: 'ICCID: 19 digits, prefix 89, Luhn check digit.' }),
  matchingId: Type.String({ description: 'Activation matching id.' }),
  smdpAddress: Type.String({ description: 'SM-DP+ host name of the activation code.' }),
});

// fast-json-stringify writes required properties before optional ones. The validation answer
// leaves some fields out, so only a leading run of fields is required and the rest, though
// always present where the description says so, are optional: the fields then come out in the
// order live writes them, in both answers.
const always = <T extends TSchema>(schema: T) => Type.Optional(schema);

const LineV24 = Type.Object({
  esims: Type.Optional(
    Type.Array(OrderEsim, {
      description: 'Activation details of the eSIMs, one per unit (placed orders only).',
    }),
  ),
  type: always(Type.String({ description: 'Always `bundle`.' })),
  item: always(Type.String({ description: 'Bundle name as in the catalogue (case-sensitive).' })),
  iccids: Type.Optional(
    Type.Array(Type.String(), { description: 'The eSIMs, one per unit (placed orders only).' }),
  ),
  quantity: always(Type.Integer({ description: 'Units of the bundle.' })),
  subTotal: always(money('pricePerUnit x quantity')),
  pricePerUnit: always(money('Catalogue price when ordered')),
  AllowReassign: always(
    Type.Boolean({
      description:
        'Whether the line asked for another eSIM where the bundle does not fit (capital A, as live).',
    }),
  ),
});

const fieldsV24 = {
  order: Type.Array(LineV24, { description: 'The order lines, in request order.' }),
  total: money('Sum of the subTotals'),
  valid: Type.Optional(
    Type.Boolean({ description: 'type validate only: true, the order would be accepted.' }),
  ),
  currency: always(Type.String({ description: 'ISO 4217 currency of every money field.' })),
  status: Type.Optional(Type.String({ description: 'Placed orders: `completed`.' })),
  statusMessage: Type.Optional(
    Type.String({ description: 'Placed orders: the outcome in words.' }),
  ),
  orderReference: Type.Optional(Type.String({ description: 'Placed orders: the UUID.' })),
  createdDate: always(
    Type.String({ description: 'When the order was placed (or checked), RFC 3339 UTC.' }),
  ),
  assigned: always(Type.Boolean({ description: 'Whether the bundles were assigned to eSIMs.' })),
  sourceIP: Type.Optional(
    Type.String({ description: 'The address the order was placed from (POST answers).' }),
  ),
};

export const OrderV24 = Type.Object(fieldsV24, { title: 'Order' });

export const OrderV25 = Type.Object(
  {
    ...fieldsV24,
    runningBalance: Type.Optional(
      money(
        'Placed orders: the balance right after this order was paid (left out when nothing was charged)',
      ),
    ),
  },
  { title: 'Order' },
);

type BodyV24 = Static<typeof OrderV24>;
type BodyV25 = Static<typeof OrderV25>;

/** What a v2.4 order shows beside the order itself: the request's flags and address. */
interface Beside {
  readonly allowReassign: readonly boolean[];
  readonly sourceIp?: string;
}

const READ: Beside = { allowReassign: [] };

// Each answer is one object literal per case, its fields in the order live writes them.

function orderV24({ order, activations }: OrderRead, beside: Beside): BodyV24 {
  const { currency } = order;
  const placed = order.status !== 'validated';
  const lines = order.items.map((i, n) => {
    const subTotal = toMajor(i.subTotal, currency);
    const pricePerUnit = toMajor(i.pricePerUnit, currency);
    const AllowReassign = beside.allowReassign[n] === true;
    if (!placed) {
      return {
        type: i.type,
        item: i.item,
        quantity: i.quantity,
        subTotal,
        pricePerUnit,
        AllowReassign,
      };
    }
    const esims = order.assign
      ? i.iccids.flatMap((iccid) => {
          const a = activations.get(iccid);
          return a === undefined
            ? []
            : [{ iccid: a.iccid, matchingId: a.matchingId, smdpAddress: a.smdpAddress }];
        })
      : [];
    return {
      esims,
      type: i.type,
      item: i.item,
      iccids: i.iccids,
      quantity: i.quantity,
      subTotal,
      pricePerUnit,
      AllowReassign,
    };
  });
  const total = toMajor(order.total, currency);
  if (!placed) {
    return {
      order: lines,
      total,
      valid: true,
      currency,
      createdDate: order.createdAt,
      assigned: order.assign,
    };
  }
  return {
    order: lines,
    total,
    currency,
    status: order.status,
    statusMessage: order.statusMessage,
    orderReference: order.reference,
    createdDate: order.createdAt,
    assigned: order.assign,
    ...(beside.sourceIp === undefined ? {} : { sourceIP: beside.sourceIp }),
  };
}

const placedV24 = (r: PlacedOrderResult): BodyV24 =>
  orderV24(r.placed, { allowReassign: r.allowReassign, sourceIp: r.sourceIp });

/** v2.5: a placed order also shows the balance its payment left (none when nothing was charged). */
function placedV25(r: PlacedOrderResult): BodyV25 {
  const body = placedV24(r);
  const after = r.placed.balanceAfter;
  if (after === null || after === undefined || r.placed.order.status === 'validated') return body;
  return { ...body, runningBalance: toMajor(after, r.placed.order.currency) };
}

const readV24 = (read: OrderRead): BodyV24 => orderV24(read, READ);

export const ORDERS_V24: OrderPresenters = {
  placeOrder: presenter(OrderV24, placedV24),
  getOrder: presenter(OrderV24, readV24),
  listOrders: presenter(orderListOf(OrderV24), (reads: readonly OrderRead[]) => ({
    orders: reads.map(readV24),
  })),
};

export const ORDERS_V25: OrderPresenters = {
  placeOrder: presenter(OrderV25, placedV25),
  getOrder: presenter(OrderV25, readV24),
  listOrders: presenter(orderListOf(OrderV25), (reads: readonly OrderRead[]) => ({
    orders: reads.map(readV24),
  })),
};
