import type { Static } from '@sinclair/typebox';
import type { Esim, EsimActivity } from '../../domain/esims/esim.js';
import type { Assignment } from '../../domain/esims/lifecycle/assignment.js';
import type { BundleState } from '../../domain/esims/lifecycle/states.js';
import type { RefundResult } from '../../domain/inventory/inventory-refund.js';
import type { CallbackVersion } from '../../domain/organisations/organisation.js';
import type { AssignmentBody, EsimBundleBody } from '../routes/esims/esim-view.js';
import type { EsimAnswer } from '../routes/esims/get.js';
import type { HistoryAnswer } from '../routes/esims/history.js';
import type { EsimListAnswer, EsimListItem } from '../routes/esims/list.js';
import type { RefundAnswer } from '../routes/inventory/refund-schema.js';
import type { OrderSchema } from '../routes/orders/order-schema.js';
import type { OrganisationAnswer } from '../routes/organisation/get.js';
import type {
  EsimBundleRead,
  EsimPage,
  EsimRead,
  HistoryItem,
  OrderRead,
  OrganisationRead,
} from './results.js';

// v2.1's bodies read back into the results they were presented from, for two readers: a later
// version's document, whose examples are its presenters' answers to the results behind v2.1's
// recorded examples (document.ts); and an Idempotency-Key record an earlier release wrote, which
// holds v2.1's body whichever version was asked (presenter.ts, presentAgain).

export type OrderV21Body = Static<typeof OrderSchema>;
export type RefundV21Body = Static<typeof RefundAnswer>;

type StoredOrder = OrderRead['order'];

const orNull = (text: string): string | null => (text === '' ? null : text);

export function orderFromV21(body: OrderV21Body): OrderRead {
  const activations = new Map(
    body.order.flatMap((line) => line.esims ?? []).map((e) => [e.iccid, e] as const),
  );
  const order: StoredOrder = {
    reference: body.orderReference,
    organisationId: '',
    status: body.status as StoredOrder['status'],
    statusMessage: body.statusMessage,
    total: body.total,
    currency: body.currency,
    assign: body.assign,
    createdAt: body.createDate,
    items: body.order.map((line, n) => ({
      lineNo: n,
      type: line.type,
      item: line.item,
      quantity: line.quantity,
      pricePerUnit: line.pricePerUnit,
      subTotal: line.subTotal,
      iccids: line.iccids ?? [],
    })),
  };
  return { order, activations };
}

export function refundFromV21(body: RefundV21Body): RefundResult {
  return {
    usageId: body.usageId,
    bundle: body.name,
    quantity: body.quantity,
    remaining: body.remaining,
    orderReference: body.orderReference,
    amount: body.amount,
    toBalance: body.refundedToBalance,
    toTestCredit: body.refundedToTestCredit,
    balance: body.balance,
    testCredit: body.testCredit,
  };
}

export function organisationFromV21(body: Static<typeof OrganisationAnswer>): OrganisationRead {
  const [first] = body.organisations;
  if (first === undefined) throw new Error('no organisation in the body');
  const { apiKey, users, testCreditExpiry, callbackVersion, ...rest } = first;
  return {
    organisation: {
      ...rest,
      id: '',
      callbackVersion: callbackVersion as CallbackVersion,
      testCreditExpiry: orNull(testCreditExpiry),
      billingType: 'FixedCost',
      ipAllowList: [],
      createdAt: '',
      updatedAt: '',
    },
    apiKey,
    users,
  };
}

function assignmentFromV21(a: AssignmentBody, bundleName: string, n: number): Assignment {
  return {
    id: a.id,
    reference: a.reference,
    iccid: '',
    organisationId: '',
    bundleName,
    batchId: null,
    state: a.bundleState as BundleState,
    initialBytes: a.initialQuantity,
    remainingBytes: a.remainingQuantity,
    usedBytes: a.usedQuantity,
    unlimited: a.unlimited,
    durationDays: 0,
    queuePosition: n,
    processingDueAt: null,
    validUntil: a.validUntil,
    startTime: orNull(a.startTime),
    endTime: orNull(a.endTime),
    createdAt: a.assignmentDateTime,
    updatedAt: a.assignmentDateTime,
  };
}

export function esimBundleFromV21(body: EsimBundleBody): EsimBundleRead {
  return {
    name: body.name,
    description: body.description,
    assignments: body.assignments.map((a, n) => assignmentFromV21(a, body.name, n)),
  };
}

type EsimV21Body = Static<typeof EsimAnswer>;
type EsimItemV21Body = Static<typeof EsimListItem>;

function esimFromFields(body: EsimV21Body, extra: { msisdn: string; createdAt: string }): Esim {
  return {
    iccid: body.iccid,
    organisationId: '',
    matchingId: body.matchingId,
    smdpAddress: body.smdpAddress,
    profileStatus: body.profileStatus as Esim['profileStatus'],
    pin: body.pin,
    puk: body.puk,
    msisdn: orNull(extra.msisdn),
    firstInstalledAt: orNull(body.firstInstalledDateTime),
    orderReference: null,
    createdAt: extra.createdAt,
    customerRef: orNull(body.customerRef),
    state: 'active',
    stateChangedAt: null,
  };
}

const activityOf = (body: EsimV21Body): EsimActivity => ({
  lastAction: body.lastAction,
  actionDate: body.actionDate,
  assignedDate: body.assignedDate,
});

export function esimFromV21(body: EsimV21Body): EsimRead {
  const esim = esimFromFields(body, { msisdn: '', createdAt: body.assignedDate });
  return {
    esim: { ...esim, ...activityOf(body) },
    ...(body.appleInstallUrl === undefined ? {} : { appleInstallUrl: body.appleInstallUrl }),
  };
}

export function esimPageFromV21(body: Static<typeof EsimListAnswer>): EsimPage {
  return {
    esims: body.esims.map((item: EsimItemV21Body) => ({
      esim: esimFromFields(item, { msisdn: item.msisdn, createdAt: item.createDate }),
      activity: activityOf(item),
    })),
    total: body.rows,
    perPage: body.pageSize,
  };
}

export const historyFromV21 = (body: Static<typeof HistoryAnswer>): HistoryItem[] =>
  body.map((entry) => ({ ...entry, at: entry.date }));
