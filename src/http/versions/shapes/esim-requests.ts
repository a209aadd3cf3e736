import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { RevokeQuery } from '../../routes/esims/revoke.js';

// What the later versions read of the eSIM requests: the bundle list's window (v2.3), a PUT with
// its fields in the query (v2.2), the refunds of a revoke (v2.4, v2.5) and v2.5's install links.

/** GET /esims/{iccid}/bundles on v2.3 and later. */
export const BundleListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 200,
      default: 15,
      description: 'At most this many assignments, the newest, 1 to 200 (default 15).',
    }),
  ),
  includeUsed: Type.Optional(
    Type.Boolean({
      default: false,
      description:
        'Also list finished assignments (depleted, expired, lapsed, revoked); v2.1 always did.',
    }),
  ),
});

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

/** GET /esims/{iccid} on v2.5: additionalFields names the Android link too. */
export const AdditionalFieldsV25 = Type.Object({
  additionalFields: Type.Optional(
    Type.String({
      description:
        'Comma-separated extra fields: appleInstallUrl, androidInstallUrl, or installUrl for both. Other names are ignored.',
    }),
  ),
});

/**
 * A generated v2.4 client sends `iccid` and `customerRef` in the query with an empty JSON body
 * (`{}`): the query's fields become the body.
 */
export function updateFromQuery(request: FastifyRequest): void {
  const body = request.body as object | undefined | null;
  if (body !== undefined && body !== null && Object.keys(body).length > 0) return;
  const { iccid, customerRef } = request.query as { iccid?: unknown; customerRef?: unknown };
  Object.assign(request, {
    body: {
      ...(iccid === undefined ? {} : { iccid }),
      ...(customerRef === undefined ? {} : { customerRef }),
    },
  });
}
