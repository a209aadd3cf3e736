import { createHash } from 'node:crypto';
import type { AppDeps } from '../../deps.js';
import { badRequest } from '../../domain/errors/error-codes.js';
import type { Organisation } from '../../domain/organisations/organisation.js';
import type { PlacedOrder } from '../../domain/orders/placement.js';
import { orderingOrganisation, placeOrder, validateOrder } from '../../domain/orders/placement.js';
import type { OrderRequest } from '../../domain/orders/validation.js';
import type { Outcome } from '../../domain/runner/use-case-runner.js';
import { answerOf, runProcess, runUseCase } from '../../domain/runner/use-case-runner.js';
import { revokeById } from '../../domain/esims/revoke-bundle.js';
import { sendSms } from '../../domain/esims/send-sms.js';
import { afterEarlierSubmission } from '../../domain/runner/after-earlier.js';

// The writes of the Orders and eSIMs pages: the domain use cases the API routes call, through
// the same runner. Buying carries the review page's key as its Idempotency-Key, so a double
// click, a resent form or a reload places the order once and answers with the same order.
//
// The review key is issued by the review step only: a random id, the organisation and a hash of
// the reviewed order, sealed with the master key (AES-256-GCM). A confirmation whose key was not
// issued by a review, was issued to another organisation or for another order is refused, so
// nothing is bought that was not shown with its total first.

const KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How long a repeat waits for the first request of the same key to finish. */
const EARLIER_WAIT_MS = 5000;

/** Checks an order (type validate): every rule placing it applies; nothing is written. */
export function reviewOrder(
  deps: AppDeps,
  organisation: Organisation,
  request: OrderRequest,
): Promise<PlacedOrder> {
  return validateOrder(deps, orderingOrganisation(organisation), request);
}

function hashOf(request: OrderRequest): string {
  return createHash('sha256')
    .update(`portal order\n${JSON.stringify(request)}`)
    .digest('hex');
}

/** The reviewed order as it will be placed (review validates, confirmation transacts). */
const placing = (request: OrderRequest): OrderRequest => ({ ...request, type: 'transaction' });

/** The key of a review: what the confirm form carries. */
export function reviewKey(
  deps: Pick<AppDeps, 'cipher' | 'random'>,
  organisationId: string,
  request: OrderRequest,
): string {
  const plain = ['review', deps.random.uuid(), organisationId, hashOf(placing(request))].join(' ');
  return deps.cipher.encrypt(plain);
}

const NOT_REVIEWED = 'the order was not reviewed: review the order, then confirm it';

/** The id of a review key issued for this organisation and this order; 400 otherwise. */
function reviewedId(
  deps: Pick<AppDeps, 'cipher'>,
  organisationId: string,
  request: OrderRequest,
  key: string,
): string {
  let plain: string;
  try {
    plain = deps.cipher.decrypt(key);
  } catch {
    throw badRequest(NOT_REVIEWED);
  }
  const [kind, id, org, hash] = plain.split(' ');
  if (kind !== 'review' || id === undefined || !KEY_PATTERN.test(id) || org !== organisationId) {
    throw badRequest(NOT_REVIEWED);
  }
  if (hash !== hashOf(placing(request))) {
    throw badRequest('the order changed after its review: review the order again, then confirm it');
  }
  return id;
}

function referenceOf(outcome: Outcome<{ orderReference: string }>): string {
  return answerOf(outcome).orderReference;
}

/** Places the order reviewed under `key`; the reference of the one order that key places. */
export async function buyBundles(
  deps: AppDeps,
  organisation: Organisation,
  request: OrderRequest,
  key: string,
): Promise<string> {
  const id = reviewedId(deps, organisation.id, request, key);
  const idempotency = {
    organisationId: organisation.id,
    key: `portal-order-${id}`,
    requestHash: hashOf(request),
  };
  const input = { org: orderingOrganisation(organisation), request };
  return afterEarlierSubmission(deps.wallClock, EARLIER_WAIT_MS, async () => {
    // As POST /v2.1/orders: committed in groups, by organisation (store/group-commit.ts), with
    // the key's record written in the same transaction as the order.
    const outcome = await runUseCase(deps, placeOrder, input, {
      idempotency,
      present: (placed: PlacedOrder) => ({ orderReference: placed.order.reference }),
      group: organisation.id,
    });
    return referenceOf(outcome);
  });
}

/**
 * Revokes one assignment of an eSIM of the organisation: refunded to inventory when unused, or
 * with `refundToBalance` its price back to the organisation's money (where the rules permit).
 */
export async function revokeEsimAssignment(
  deps: AppDeps,
  organisationId: string,
  iccid: string,
  bundleName: string,
  assignmentId: string,
  refundToBalance = false,
): Promise<{ refundedToInventory: boolean; refundedAmount: number }> {
  const done = await revokeById(deps, {
    organisationId,
    iccid,
    name: bundleName,
    assignmentId,
    type: 'transaction',
    refundToBalance,
  });
  return { refundedToInventory: done.refundToInventory, refundedAmount: done.refundedAmount };
}

/**
 * Sends an SMS from the default sender to an eSIM of the organisation. The form's key (from the
 * page that showed the form) is claimed like the API's Idempotency-Key, so the same form sent
 * twice hands the message to the network once; without a key the SMS is simply sent.
 */
export async function sendEsimSms(
  deps: AppDeps,
  organisationId: string,
  iccid: string,
  message: string,
  key = '',
): Promise<void> {
  const input = {
    organisationId,
    iccid,
    message,
    from: deps.config.smsAllowedSenders[0] ?? 'eSIM',
  };
  if (key === '') return sendSms(deps, input);
  if (!KEY_PATTERN.test(key)) throw badRequest('the SMS form has expired: reload the page');
  const idempotency = {
    organisationId,
    key: `portal-sms-${key}`,
    requestHash: createHash('sha256').update(`portal sms\n${iccid}\n${message}`).digest('hex'),
  };
  await afterEarlierSubmission(deps.wallClock, EARLIER_WAIT_MS, async () => {
    answerOf(await runProcess(deps, sendSms, input, { idempotency, present: () => ({}) }));
  });
}
