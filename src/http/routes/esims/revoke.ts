import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.js';
import { revokeById } from '../../../domain/esims/revoke-bundle.js';
import type { Api } from '../../api.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';
import { can } from '../../versions/capabilities.js';
import { present, presented } from '../../versions/presenter.js';
import { ICCID_DESCRIPTION } from './esim-view.js';

const Params = Type.Object({
  iccid: Type.String({ description: ICCID_DESCRIPTION }),
  name: Type.String({ description: 'Bundle name as in the catalogue (case-sensitive).' }),
  assignmentId: Type.String({
    description: 'Id of the assignment, as in GET /esims/{iccid}/bundles and usage callbacks.',
  }),
});

export const RevokeQuery = Type.Object({
  type: Type.Optional(
    Type.Unsafe<'validate' | 'transaction'>({
      type: 'string',
      enum: ['validate', 'transaction'],
      default: 'transaction',
      description:
        'validate: report what the revoke would do and change nothing. transaction (default): revoke.',
    }),
  ),
});

export const RevokeResult = Type.Object({
  status: Type.String({
    description: 'validated (type=validate: nothing changed) or revoked (type=transaction).',
  }),
  assignmentId: Type.String(),
  bundle: Type.String({ description: 'Bundle name.' }),
  previousState: Type.String({ description: 'State before the revoke.' }),
  bundleState: Type.String({
    description: 'State after the call: unchanged for validate, Revoked for transaction.',
  }),
  refundToInventory: Type.Boolean({
    description:
      'True when the assignment was unused (Processing or Queued): the unit goes back to inventory. ' +
      'An Active assignment is revoked without refund.',
  }),
});

const DESCRIPTION =
  'Revokes one assignment of a bundle on an eSIM (for example one month of a repeated bundle). ' +
  'Processing or Queued assignments become Revoked and the unit is refunded to inventory (to the ' +
  'batch it was drawn from; a unit bought with assign=true comes back as a new batch of one that ' +
  'lapses when the assignment would have). An Active assignment becomes Revoked without refund. ' +
  'Depleted, Expired or Revoked assignments cannot be revoked (400). An assignment that does not ' +
  'exist, is not of that bundle or not on that eSIM is a 404.';

const responses = {
  200: RevokeResult,
  400: standardErrors[400],
  403: standardErrors[403],
  404: standardErrors[404],
  500: standardErrors[500],
};

/**
 * refundToBalance and offerId of a revoke, read only where the version serving the request
 * offers them (its capability); elsewhere the query has no such fields.
 */
export function refundOptions(
  request: FastifyRequest,
  capability: 'refundToBalanceByName' | 'refundToBalanceByAssignment',
): { refundToBalance?: boolean; offerId?: string } {
  if (!can(request, capability)) return {};
  const query = request.query as { refundToBalance?: boolean; offerId?: string };
  return {
    ...(query.refundToBalance === undefined ? {} : { refundToBalance: query.refundToBalance }),
    ...(query.offerId === undefined ? {} : { offerId: query.offerId }),
  };
}

/** The successor's path under the version prefix the request came in on (`/v2.1`, `/v2.4` …). */
const successorPath = (url: string, iccid: string, name: string, id: string): string =>
  `${url.slice(0, Math.max(0, url.indexOf('/esims/')))}/esims/${encodeURIComponent(iccid)}/bundles/${encodeURIComponent(name)}/assignments/${encodeURIComponent(id)}`;

export function registerRevokeAssignment(app: Api, deps: AppDeps): void {
  const handle = (
    organisationId: string,
    params: { iccid: string; name: string; assignmentId: string },
    type: 'validate' | 'transaction',
    refund: { refundToBalance?: boolean } = {},
  ) => revokeById(deps, { organisationId, ...params, type, ...refund });

  app.delete(
    '/esims/:iccid/bundles/:name/assignments/:assignmentId',
    {
      schema: {
        tags: ['eSIMs'],
        operationId: 'revokeAssignment',
        summary: 'Revoke one assignment of a bundle',
        description: `${DESCRIPTION} Successor of the deprecated .../applications/{assignmentId} route, with the same behaviour.`,
        security: headerOnlySecurity,
        params: Params,
        querystring: RevokeQuery,
        response: { ...responses, 200: presented(RevokeResult) },
      },
    },
    async (request) => {
      const result = await handle(
        request.organisation.id,
        request.params,
        request.query.type ?? 'transaction',
        refundOptions(request, 'refundToBalanceByAssignment'),
      );
      const currency = request.organisation.currency;
      return present(request, 'revokeAssignment', { result, currency });
    },
  );

  app.delete(
    '/esims/:iccid/bundles/:name/applications/:assignmentId',
    {
      schema: {
        tags: ['eSIMs'],
        operationId: 'revokeApplication',
        summary: 'Revoke one assignment of a bundle (deprecated)',
        description: `${DESCRIPTION} Deprecated: every response carries Deprecation: true and a Link to the successor, DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}.`,
        deprecated: true,
        security: headerOnlySecurity,
        params: Params,
        querystring: RevokeQuery,
        response: responses,
      },
      // Set before the handler runs so error responses carry the headers too.
      onRequest: async (request, reply: FastifyReply) => {
        const p = request.params as Record<string, string | undefined>;
        reply.header('deprecation', 'true');
        reply.header(
          'link',
          `<${successorPath(request.url, p['iccid'] ?? '', p['name'] ?? '', p['assignmentId'] ?? '')}>; rel="successor-version"`,
        );
      },
    },
    async (request) =>
      handle(request.organisation.id, request.params, request.query.type ?? 'transaction'),
  );
}
