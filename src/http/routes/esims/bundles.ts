import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import type { EsimAssignments } from '../../../domain/esims/esim-reads.js';
import { listEsimAssignments } from '../../../domain/esims/esim-reads.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';
import { can } from '../../versions/capabilities.js';
import { present, presented } from '../../versions/presenter.js';
import type { EsimBundleRead } from '../../versions/results.js';
import {
  EsimBundleSchema,
  IccidParams,
  checkIccid,
  esimNotFound,
  groupByBundle,
} from './esim-view.js';

/** v2.1's answer: every bundle of the eSIM (versions/presenters/esim-bundles.ts). */
export const EsimBundlesAnswer = Type.Object({ bundles: Type.Array(EsimBundleSchema) });

const FINISHED: ReadonlySet<string> = new Set(['Depleted', 'Expired', 'Revoked']);

interface WindowQuery {
  readonly limit?: number;
  readonly includeUsed?: boolean;
}

/**
 * The versions with an assignment window (v2.3+): the newest `limit` assignments (15 by
 * default), finished ones only with includeUsed, grouped as before.
 */
function windowed(bundles: EsimBundleRead[], query: WindowQuery): EsimBundleRead[] {
  const { limit = 15, includeUsed = false } = query;
  const kept = bundles
    .flatMap((b) => b.assignments)
    .filter((a) => includeUsed || !FINISHED.has(a.state));
  kept.sort((x, y) => (x.createdAt < y.createdAt ? -1 : 1));
  const newest = new Set(kept.slice(-limit));
  return bundles
    .map((b) => ({ ...b, assignments: b.assignments.filter((a) => newest.has(a)) }))
    .filter((b) => b.assignments.length > 0);
}

const listSchema = {
  tags: ['eSIMs'],
  operationId: 'listEsimBundles',
  summary: 'List the bundles of an eSIM with their assignments',
  description:
    'Every bundle ever assigned to the eSIM, in the order first assigned, each with its ' +
    'assignments (id, reference, state, data in bytes, start and end time). Includes finished ' +
    '(Depleted, Expired, Revoked) assignments.',
  security: apiKeySecurity,
  params: IccidParams,
  response: {
    200: presented(EsimBundlesAnswer),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

const oneSchema = {
  tags: ['eSIMs'],
  operationId: 'getEsimBundle',
  summary: 'Get one bundle of an eSIM with its assignments',
  description: 'A bundle never assigned to this eSIM is a 404.',
  security: apiKeySecurity,
  params: Type.Composite([
    IccidParams,
    Type.Object({
      name: Type.String({ description: 'Bundle name as in the catalogue (case-sensitive).' }),
    }),
  ]),
  response: {
    200: presented(EsimBundleSchema),
    400: standardErrors[400],
    403: standardErrors[403],
    404: standardErrors[404],
    500: standardErrors[500],
  },
};

export function registerEsimBundles(app: Api, deps: AppDeps): void {
  const { db } = deps.store;
  // One statement each: the eSIM's ownership, its assignments and their bundles' descriptions.
  const load = async (organisationId: string, raw: string): Promise<EsimAssignments> => {
    const iccid = checkIccid(raw);
    const found = await listEsimAssignments(db, organisationId, iccid);
    if (found === undefined) throw esimNotFound(iccid);
    return found;
  };

  app.get('/esims/:iccid/bundles', { schema: listSchema }, async (request) => {
    const { assignments, descriptions } = await load(request.organisation.id, request.params.iccid);
    const bundles = groupByBundle(assignments, descriptions);
    return present(
      request,
      'listEsimBundles',
      can(request, 'assignmentWindow') ? windowed(bundles, request.query as WindowQuery) : bundles,
    );
  });

  app.get('/esims/:iccid/bundles/:name', { schema: oneSchema }, async (request) => {
    const { iccid, name } = request.params;
    const { assignments, descriptions } = await load(request.organisation.id, iccid);
    const [bundle] = groupByBundle(
      assignments.filter((a) => a.bundleName === name),
      descriptions,
    );
    if (bundle === undefined) throw notFound(`bundle ${name} was never assigned to eSIM ${iccid}`);
    return present(request, 'getEsimBundle', bundle);
  });
}
