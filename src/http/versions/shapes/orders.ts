import { Type } from '@sinclair/typebox';
import type { TArray, TInteger, TObject, TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../domain/errors/error-codes.js';
import type { OrderBody } from '../../routes/orders/order-schema.js';
import { OrderSchema } from '../../routes/orders/order-schema.js';
import { toMajor, toMajorText } from '../money.js';
import type { AppDeps } from '../../../deps.js';
import { balanceAfterOrder } from '../../../store/repositories/ledger-repository.js';
import { balanceLeftBy } from '../../routes/orders/placed-balance.js';
import { money, without } from './schema-tools.js';

// Orders on the later versions. v2.2: `assigned` for v2.1's extension field `assign`, a list
// wrapped as {orders: [...]}, the flat quick-start body and the capital `Order` key. v2.3: every
// line carries `iccids`. v2.4: money in major units, `createdDate`, `valid` on a validation,
// `AllowReassign`, `sourceIP`, `esims` on every line. v2.5: `runningBalance`, `profileID`.

type Line = OrderBody['order'][number];

const OrderEsim = Type.Object({
  iccid: Type.String({ description: 'ICCID: 19 digits, prefix 89, Luhn check digit.' }),
  matchingId: Type.String({ description: 'Activation matching id.' }),
  smdpAddress: Type.String({ description: 'SM-DP+ host name of the activation code.' }),
});

const lineV21 = OrderSchema.properties.order.items;

/** v2.2 / v2.3 order: v2.1's with `assigned` (v2.3: `iccids` always there). */
function orderV22(iccidsAlways: boolean): TObject {
  const line = iccidsAlways
    ? Type.Object({
        ...lineV21.properties,
        iccids: Type.Array(Type.String(), {
          description: 'The eSIMs the units went onto, one per unit; empty for inventory lines.',
        }),
      })
    : lineV21;
  return Type.Object(
    {
      ...without(OrderSchema, ['assign']).properties,
      order: Type.Array(line, { description: 'The order lines, in request order.' }),
      assigned: Type.Boolean({ description: 'Whether the bundles were assigned to eSIMs.' }),
    },
    { title: 'Order' },
  );
}

export const OrderV22 = orderV22(false);
export const OrderV23 = orderV22(true);

// fast-json-stringify writes required properties before optional ones. The validation answer
// leaves some fields out, so only a leading run of fields is required and the rest, though
// always present where the description says so, are optional: the fields then come out in the
// order live writes them, in both answers.
const always = (schema: TSchema): TSchema => Type.Optional(schema);

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

function orderV24(runningBalance: boolean): TObject {
  return Type.Object(
    {
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
      assigned: always(
        Type.Boolean({ description: 'Whether the bundles were assigned to eSIMs.' }),
      ),
      sourceIP: Type.Optional(
        Type.String({ description: 'The address the order was placed from (POST answers).' }),
      ),
      ...(runningBalance
        ? {
            runningBalance: Type.Optional(
              Type.String({
                description:
                  'Placed orders: the balance right after this order was paid, major units as a decimal string.',
              }),
            ),
          }
        : {}),
    },
    { title: 'Order' },
  );
}

export const OrderV24 = orderV24(false);
export const OrderV25 = orderV24(true);

export const orderListOf = (order: TObject): TObject =>
  Type.Object({ orders: Type.Array(order, { description: 'One page of orders, newest first.' }) });

// Answers, from the v2.1 body the shared handlers write.

export function orderV22Answer(body: OrderBody): Record<string, unknown> {
  const { assign, ...rest } = body;
  return { ...rest, assigned: assign };
}

export function orderV23Answer(body: OrderBody): Record<string, unknown> {
  const { assign, order, ...rest } = body;
  return {
    ...rest,
    order: order.map((line) => ({ ...line, iccids: line.iccids ?? [] })),
    assigned: assign,
  };
}

/** The lines of the order request, when the answer is to a POST (their allowReassign). */
function requestLines(
  request: FastifyRequest | undefined,
): readonly { allowReassign?: boolean }[] | undefined {
  return (request?.body as { order?: { allowReassign?: boolean }[] } | undefined)?.order;
}

// Each answer is one object literal per case, its fields in the order live writes them (a
// replay sends JSON.stringify of it): no spread of a conditional object per field.

function lineV24(line: Line, currency: string, allowReassign: boolean, placed: boolean) {
  const subTotal = toMajor(line.subTotal, currency);
  const pricePerUnit = toMajor(line.pricePerUnit, currency);
  if (!placed) {
    return {
      type: line.type,
      item: line.item,
      quantity: line.quantity,
      subTotal,
      pricePerUnit,
      AllowReassign: allowReassign,
    };
  }
  return {
    esims: line.esims ?? [],
    type: line.type,
    item: line.item,
    iccids: line.iccids ?? [],
    quantity: line.quantity,
    subTotal,
    pricePerUnit,
    AllowReassign: allowReassign,
  };
}

export function orderV24Answer(
  body: OrderBody,
  request?: FastifyRequest,
  sourceIp?: string,
): Record<string, unknown> {
  const { currency } = body;
  const lines = requestLines(request);
  const placed = body.status !== 'validated';
  const order = body.order.map((line, i) =>
    lineV24(line, currency, lines?.[i]?.allowReassign === true, placed),
  );
  if (!placed) {
    return {
      order,
      total: toMajor(body.total, currency),
      valid: true,
      currency,
      createdDate: body.createDate,
      assigned: body.assign,
    };
  }
  const shaped: Record<string, unknown> = {
    order,
    total: toMajor(body.total, currency),
    currency,
    status: body.status,
    statusMessage: body.statusMessage,
    orderReference: body.orderReference,
    createdDate: body.createDate,
    assigned: body.assign,
  };
  if (sourceIp !== undefined) shaped['sourceIP'] = sourceIp;
  return shaped;
}

// Requests.

const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;

/**
 * A branding profile id must be a UUID, as live checks it (`invalid UUID length: 22`). Branding
 * itself is not modelled: a valid id is accepted and changes nothing.
 */
export function checkProfileId(value: unknown): void {
  if (value === undefined) return;
  const text = String(value);
  const bare = text.replace(/^urn:uuid:/i, '').replace(/^\{(.*)\}$/, '$1');
  if (bare.length !== 32 && bare.length !== 36) {
    throw badRequest(`invalid UUID length: ${text.length}`);
  }
  if (!UUID.test(bare)) throw badRequest('invalid UUID format');
}

/** The order body of v2.2 and later: v2.1's, `order` optional beside the flat quick-start form. */
export function laterOrderBodySchema(shared: TObject, profileId: boolean): TObject {
  const { order, ...rest } = shared.properties;
  const line = (order as TArray<TObject>).items;
  return Type.Object({
    ...rest,
    order: Type.Optional(order as TArray),
    item: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Quick-start form, instead of `order`: the bundle name of a one-line order.',
      }),
    ),
    quantity: Type.Optional({
      ...line.properties['quantity'],
      description: 'Quick-start form: units of `item` (default 1).',
    } as TInteger),
    iccid: Type.Optional(
      Type.String({
        maxLength: 32,
        description:
          'Quick-start form with assign: true: the eSIM to put the bundle on; empty (or absent) issues a new eSIM.',
      }),
    ),
    ...(profileId
      ? {
          profileID: Type.Optional(
            Type.String({
              maxLength: 100,
              description:
                'Branding profile (a UUID), with assign: true. Accepted; branding is not modelled, so it changes nothing.',
            }),
          ),
        }
      : {}),
  });
}

export interface LaterOrderBody {
  type?: 'validate' | 'transaction';
  assign?: boolean;
  order?: {
    type: 'bundle';
    item: string;
    quantity: number;
    iccids?: string[];
    allowReassign?: boolean;
  }[];
  item?: string;
  quantity?: number;
  iccid?: string;
  iccids?: string[];
  allowReassign?: boolean;
  profileID?: string;
}

/**
 * The body the shared handler reads, from the later versions' body: the `order` array, or the
 * flat quick-start form `{type, quantity, item, assign, iccid}` (one line).
 */
export function sharedOrderBody(request: FastifyRequest): void {
  const body = request.body as LaterOrderBody;
  checkProfileId(body.profileID);
  if (body.order !== undefined) return;
  if (body.item === undefined) {
    throw badRequest('order is required: an `order` array of lines, or `item` and `quantity`');
  }
  // An empty `iccid` is how quick-start clients say "no eSIM given": new eSIMs are issued.
  const given = body.iccid === undefined || body.iccid.trim() === '' ? undefined : [body.iccid];
  const iccids = body.iccids ?? given;
  const line = {
    type: 'bundle' as const,
    item: body.item,
    quantity: body.quantity ?? 1,
    ...(iccids === undefined ? {} : { iccids }),
    ...(body.allowReassign === undefined ? {} : { allowReassign: body.allowReassign }),
  };
  body.order = [line];
}

/** The answer `shaped` (a fresh object of orderV24Answer) with the running balance, if any. */
function withRunningBalance(
  shaped: Record<string, unknown>,
  after: number | null | undefined,
  currency: string,
): Record<string, unknown> {
  if (after !== null && after !== undefined)
    shaped['runningBalance'] = toMajorText(after, currency);
  return shaped;
}

/**
 * v2.5: a placed order also carries `runningBalance`, the balance its payment left (its journal
 * entry's balance_after), in major units as a decimal string. The order this request placed
 * brings it from placement; only a replay or an order placed in the background reads it.
 */
export function orderV25Answer(
  body: OrderBody,
  request: FastifyRequest,
  deps: AppDeps,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const shaped = orderV24Answer(body, request, request.ip);
  if (body.status === 'validated' || body.orderReference === '') return shaped;
  const left = balanceLeftBy(request);
  if (left !== undefined) return withRunningBalance(shaped, left, body.currency);
  return balanceAfterOrder(deps.store.db, request.organisation.id, body.orderReference).then(
    (after) => withRunningBalance(shaped, after, body.currency),
  );
}
