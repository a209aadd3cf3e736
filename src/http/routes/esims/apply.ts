import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { MAX_REPEAT } from '../../../domain/esims/lifecycle/apply-from-inventory.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type {
  AppliedBundle,
  ApplyBundleInput,
  ApplyEntry,
} from '../../../domain/esims/apply-bundle.js';
import { applyBundle, applyUnits, loadAppliedBundle } from '../../../domain/esims/apply-bundle.js';
import {
  DEFERRED_ABOVE_UNITS,
  stillProcessing,
  submitDeferred,
} from '../../../domain/deferred/submit.js';
import { checkIccid } from '../../../domain/esims/owned-esim.js';
import { findOwnedEsim } from '../../../domain/esims/esim-reads.js';
import { notFound } from '../../../domain/errors/error-codes.js';
import { can } from '../../versions/capabilities.js';
import { runUseCase } from '../../../domain/runner/use-case-runner.js';
import type { Api } from '../../api.js';
import {
  IdempotencyHeaders,
  idempotencyConflict,
  idempotencyOf,
  presentedKey,
  replyWith,
  requestHash,
} from '../../idempotency.js';
import { headerOnlySecurity, standardErrors } from '../../schemas/common.js';

/** The answer of an apply (also of the deprecated POST /esims/{iccid}/bundles). */
export const ApplyAnswer = Type.Object({
  esims: Type.Array(
    Type.Object({
      iccid: Type.String(),
      matchingId: Type.String(),
      smdpAddress: Type.String(),
      status: Type.String({ description: '"Successfully Assigned".' }),
      bundle: Type.String({ description: 'Bundle name.' }),
      assignmentId: Type.String({ description: 'Id of the assignment (for revoking it).' }),
      bundleState: Type.String({ description: 'State right after applying.' }),
    }),
    { description: 'One entry per unit applied.' },
  ),
  applyReference: Type.String({ description: 'Reference of this apply (a UUID).' }),
});

/** The error answers of an apply, whichever route it comes through. */
export const APPLY_ERRORS = {
  400: standardErrors[400],
  403: standardErrors[403],
  404: standardErrors[404],
  409: idempotencyConflict,
  500: standardErrors[500],
};

const schema = {
  tags: ['eSIMs'],
  operationId: 'applyBundle',
  summary: 'Apply a bundle from inventory to an eSIM',
  description:
    'Takes units of a bundle from the organisation inventory (oldest unexpired batch first) and ' +
    'assigns them to an eSIM the organisation owns, or to a newly issued eSIM when iccid is ' +
    'omitted. Each assignment starts in Processing and is Queued once provisioned. All or nothing: ' +
    'without enough units in inventory nothing changes (400, code insufficient_inventory). A ' +
    'bundle that does not exist and one outside the organisation groups that it never bought get ' +
    'the same 400 (code unknown_bundle). The applyReference works with ' +
    'GET /esims/assignments for install data. Accepts Idempotency-Key.',
  security: headerOnlySecurity,
  headers: IdempotencyHeaders,
  body: Type.Object(
    {
      name: Type.String({ minLength: 1, description: 'Bundle name (case-sensitive).' }),
      iccid: Type.Optional(
        Type.String({
          description:
            'eSIM to apply to (the organisation must own it; otherwise 404). Omitted: a new eSIM is issued.',
        }),
      ),
      repeat: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: MAX_REPEAT,
          default: 1,
          description: `Units to apply to that eSIM, 1 to ${MAX_REPEAT}; they queue one after another.`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: { 200: ApplyAnswer, ...APPLY_ERRORS },
};

const appliedBody = (applied: AppliedBundle) => ({
  esims: applied.assignments.map((a) => {
    const esim = applied.esims.get(a.iccid) ?? applied.esim;
    return {
      iccid: esim.iccid,
      matchingId: esim.matchingId,
      smdpAddress: esim.smdpAddress,
      status: 'Successfully Assigned',
      bundle: a.bundleName,
      assignmentId: a.id,
      bundleState: a.state,
    };
  }),
  applyReference: applied.reference,
});

/** What an apply asks, whichever route and version it came through. */
export interface ApplyRequest {
  readonly name: string;
  readonly iccid: string | undefined;
  readonly repeat: number;
  /** Further bundles (v2.2+ `bundles[]`), each on a new eSIM unless `iccid` is given. */
  readonly more?: readonly ApplyEntry[];
}

/**
 * Answers an apply: at once, or (v2.2+, more than five bundles) in the background. v2.2+ also
 * record the apply as an order.
 */
export async function answerApply(
  deps: AppDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  asked: ApplyRequest,
): Promise<unknown> {
  const { iccid } = asked;
  const input: ApplyBundleInput = {
    organisationId: request.organisation.id,
    groups: request.organisation.groups,
    bundleName: asked.name,
    iccid,
    repeat: asked.repeat,
    ...(asked.more === undefined || asked.more.length === 0 ? {} : { more: asked.more }),
    ...(can(request, 'applyRecordsOrder')
      ? { recordOrder: { currency: request.organisation.currency } }
      : {}),
  };
  // v2.2+: more than five bundles are applied in the background (docs/orders.md).
  if (applyUnits(input) > DEFERRED_ABOVE_UNITS && can(request, 'asyncOrders')) {
    const state = await submitDeferred(deps, {
      organisationId: input.organisationId,
      kind: 'apply',
      idempotencyKey: presentedKey(request),
      requestHash: requestHash(request),
      input,
      check: async () => {
        // What can be checked without writing: the eSIM named is the organisation's.
        if (iccid === undefined) return;
        checkIccid(iccid, 'body field iccid');
        const owned = await findOwnedEsim(deps.store.db, input.organisationId, iccid);
        if (owned === undefined) throw notFound(`eSIM ${iccid} not found`);
      },
    });
    if (state.state === 'processing') throw stillProcessing(state.reference);
    const applied = await loadAppliedBundle(deps.store.db, input.organisationId, state.reference);
    if (applied === undefined) throw notFound(`apply ${state.reference} not found`);
    return appliedBody(applied);
  }
  const outcome = await runUseCase(deps, applyBundle, input, {
    idempotency: idempotencyOf(request),
    present: appliedBody,
  });
  return replyWith(reply, outcome);
}

/** The body the handler reads: v2.1's, and the further bundles a later version's request adds. */
type ApplyBody = { name: string; iccid?: string; repeat?: number; more?: ApplyEntry[] };

export function registerApplyBundle(app: Api, deps: AppDeps): void {
  app.post('/esims/apply', { schema }, async (request, reply) => {
    const { name, iccid, repeat = 1, more } = request.body as ApplyBody;
    return answerApply(deps, request, reply, { name, iccid, repeat, ...(more ? { more } : {}) });
  });
}
