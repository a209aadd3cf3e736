import { Type } from '@sinclair/typebox';
import type { Config } from '../../../config.js';
import type { AppDeps } from '../../../deps.js';
import {
  orderingOrganisation,
  placeOrder,
  validateOrder,
} from '../../../domain/orders/placement.js';
import { readPlacedOrder } from '../../../domain/orders/order-reads.js';
import type { OrderRequest } from '../../../domain/orders/validation.js';
import type { Api } from '../../api.js';
import { runUseCase } from '../../../domain/runner/use-case-runner.js';
import {
  DEFERRED_ABOVE_UNITS,
  stillProcessing,
  submitDeferred,
} from '../../../domain/deferred/submit.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import { can } from '../../versions/capabilities.js';
import { present, presentAgain, presented, storedAnswer } from '../../versions/presenter.js';
import { orderFromV21 } from '../../versions/v21-bodies.js';
import type { OrderV21Body } from '../../versions/v21-bodies.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  presentedKey,
  replyPresented,
  requestHash,
} from '../../idempotency.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { OrderSchema } from './order-schema.js';

function bodySchema(config: Config) {
  const line = Type.Object({
    type: Type.Unsafe<'bundle'>({
      type: 'string',
      enum: ['bundle'],
      description: 'Line type; only `bundle`.',
    }),
    item: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Bundle name from the catalogue (case-sensitive), e.g. esim_1GB_7D_GB_V2.',
    }),
    quantity: Type.Integer({
      minimum: 1,
      maximum: config.orderMaxQuantityPerLine,
      description: `Units of the bundle, 1 to ${config.orderMaxQuantityPerLine} per line (ORDER_MAX_QUANTITY_PER_LINE).`,
    }),
    iccids: Type.Optional(
      Type.Array(Type.String({ maxLength: 32 }), {
        maxItems: config.orderMaxQuantityPerLine,
        description:
          'assign: true only: eSIMs of the organisation to put the units on, exactly `quantity` of ' +
          'them. Without it, assign: true issues new eSIMs.',
      }),
    ),
    allowReassign: Type.Optional(
      Type.Boolean({
        description:
          'Accepted for compatibility. Every eSIM of this service can take every bundle, so it changes nothing.',
      }),
    ),
  });
  return Type.Object({
    type: Type.Optional(
      Type.Unsafe<'validate' | 'transaction'>({
        type: 'string',
        enum: ['validate', 'transaction'],
        default: 'transaction',
        description:
          '`validate` checks everything (bundles, groups, quantities, ICCIDs, funds) and charges ' +
          'and stores nothing. `transaction` places the order, all or nothing.',
      }),
    ),
    assign: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          '`false`: the bundles go into inventory. `true`: each unit is assigned to an eSIM ' +
          '(the listed `iccids`, or new eSIMs), starting in state Processing.',
      }),
    ),
    order: Type.Array(line, {
      minItems: 1,
      maxItems: config.orderMaxLines,
      description: `Order lines, 1 to ${config.orderMaxLines} (ORDER_MAX_LINES); at most ${config.orderMaxQuantityPerOrder} units in all (ORDER_MAX_QUANTITY_PER_ORDER).`,
    }),
  });
}

export function registerPlaceOrder(app: Api, deps: AppDeps): void {
  const schema = {
    tags: ['Orders'],
    operationId: 'placeOrder',
    summary: 'Place or validate an order',
    description:
      'The price is debited from test credit first (while unexpired), then from the balance. ' +
      'Insufficient funds, an unknown bundle or one outside the organisation groups, an ICCID the ' +
      'organisation does not own, or a quantity above the limits: 400, and nothing changes.',
    security: headerOnlySecurity,
    headers: IdempotencyHeaders,
    body: bodySchema(deps.config),
    response: {
      200: presented(OrderSchema),
      400: standardErrors[400],
      403: standardErrors[403],
      409: idempotencyConflict,
      500: standardErrors[500],
    },
  };
  app.post('/orders', { schema }, async (request, reply) => {
    const body = request.body;
    const order: OrderRequest = {
      type: body.type ?? 'transaction',
      assign: body.assign ?? false,
      order: body.order,
    };
    const org = orderingOrganisation(request.organisation);
    // What the request says beside the order, for the versions that show it (v2.4's sourceIP
    // and AllowReassign).
    const beside = {
      sourceIp: request.ip,
      allowReassign: body.order.map((line) => line.allowReassign === true),
    };
    // validate writes nothing, so it is safe to repeat and needs no idempotency record.
    if (order.type === 'validate') {
      const placed = await validateOrder(deps, org, order);
      return present(request, 'placeOrder', { placed, ...beside });
    }
    const units = order.order.reduce((n, line) => n + line.quantity, 0);
    // v2.2+: more than five bundles are placed in the background (docs/orders.md).
    if (units > DEFERRED_ABOVE_UNITS && can(request, 'asyncOrders')) {
      const state = await submitDeferred(deps, {
        organisationId: org.id,
        kind: 'order',
        idempotencyKey: presentedKey(request),
        requestHash: requestHash(request),
        input: { org: { id: org.id, currency: org.currency, groups: org.groups }, request: order },
        check: async () => {
          await validateOrder(deps, org, order);
        },
      });
      if (state.state === 'processing') throw stillProcessing(state.reference);
      const placed = await readPlacedOrder(deps, org.id, state.reference);
      if (placed === undefined) throw notFound(`order ${state.reference} not found`);
      return present(request, 'placeOrder', { placed, ...beside });
    }
    const outcome = await runUseCase(
      deps,
      placeOrder,
      { org, request: order },
      // Orders are committed in groups, by organisation (store/group-commit.ts). A repeat with
      // the same Idempotency-Key answers the body this version presented (presenter.ts).
      {
        idempotency: idempotencyOf(request),
        present: (placed) => storedAnswer(request, 'placeOrder', { placed, ...beside }),
        group: org.id,
      },
    );
    return replyPresented(reply, outcome, (stored) =>
      presentAgain(request, 'placeOrder', stored, (v21: OrderV21Body) => ({
        placed: orderFromV21(v21),
        ...beside,
      })),
    );
  });
}
