import { Type } from '@sinclair/typebox';
import type { TArray, TObject } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { RevokeOutcome } from '../../../domain/esims/revoke-bundle.js';
import { RevokeQuery } from '../../routes/esims/revoke.js';
import { toMajor } from '../money.js';
import { money, reshaped } from './schema-tools.js';

// eSIM state and refunds to the balance on the later versions. v2.4: revoke by bundle name takes
// refundToBalance and offerId. v2.5: the eSIM's state on GET /esims and GET /esims/{iccid}, and
// refundToBalance on the per-assignment revoke too. (The suspend and delete routes themselves are
// v2.5's extra routes, src/http/routes/esims/suspend.ts and delete.ts.)

const STATE = Type.Unsafe<'active' | 'suspended' | 'deactivated'>({
  type: 'string',
  enum: ['active', 'suspended', 'deactivated'],
  description:
    'active; suspended (POST /esims/{iccid}/suspend: no data, no SMS until unsuspended); or deactivated (deleted with DELETE /esims/{iccid}: gone for good).',
});

/** GET /esims/{iccid} on v2.5: the v2.4 answer plus `state` and the default branding. */
export function esimV25Schema(v24: TObject): TObject {
  return reshaped(v24, {
    state: STATE,
    brandingId: Type.String({
      description: 'The branding profile of the eSIM: "(default)", the default branding.',
    }),
  });
}

export function esimV25Answer(v24Answer: (body: never) => Record<string, unknown>) {
  return (body: { state?: string }): Record<string, unknown> => ({
    ...v24Answer(body as never),
    // A recorded v2.1 answer (the document's example) has no state.
    state: body.state ?? 'active',
    brandingId: '(default)',
  });
}

/** GET /esims on v2.5: each item gains `state` (the shared handler puts it on every item). */
export function esimListV25Schema(shared: TObject): TObject {
  const esims = shared.properties['esims'] as TArray<TObject>;
  return reshaped(
    shared,
    {
      esims: Type.Array(reshaped(esims.items, { state: STATE }), {
        description: esims.description,
      }),
    },
    { headers: (shared as { headers?: unknown }).headers },
  );
}

export const RevokeQueryV24 = Type.Object({
  ...RevokeQuery.properties,
  refundToBalance: Type.Optional(
    Type.Boolean({
      description:
        'true: an unused (Processing or Queued) assignment is refunded to the organisation money at its purchase price, instead of to inventory, within the refund window counted from the purchase (INVENTORY_REFUND_DAYS). A started one is a 400 (refund_not_allowed).',
    }),
  ),
  offerId: Type.Optional(
    Type.String({
      description:
        'The assignment id to revoke (as in GET /esims/{iccid}/bundles); without it, the oldest unused assignment of the bundle.',
    }),
  ),
});

/** The per-assignment revoke's query on v2.5: refundToBalance (the path names the assignment). */
export const RevokeAssignmentQueryV25 = Type.Object({
  ...RevokeQuery.properties,
  refundToBalance: RevokeQueryV24.properties.refundToBalance,
});

export function revokeV24Schema(shared: TObject): TObject {
  return reshaped(shared, {
    refundToBalance: Type.Boolean({
      description: 'True when the price went (or, validating, would go) back to the money.',
    }),
    refundedAmount: money('What went (or would go) back to the balance and test credit'),
  });
}

export function revokeV24Answer(body: Partial<RevokeOutcome>, request: FastifyRequest) {
  return {
    ...body,
    // A recorded v2.1 answer (the document's example) has neither field.
    refundToBalance: body.refundToBalance ?? false,
    refundedAmount: toMajor(body.refundedAmount ?? 0, request.organisation.currency),
  };
}

/** GET /esims/{iccid}/compatible/{bundle} on v2.4 and later: {compatible}. */
export const CompatibleV24 = Type.Object(
  { compatible: Type.Boolean({ description: 'Whether the bundle can be applied to the eSIM.' }) },
  { description: 'The compatibility result.', example: { compatible: true } },
);

export const compatibleV24Answer = (body: { compatible: boolean }) => ({
  compatible: body.compatible,
});
