import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../deps.js';
import { DomainError } from '../../domain/errors/error-codes.js';
import { saveCardWithPayment } from '../../domain/money/card-payment.js';
import { topUpOnce } from '../../domain/money/top-up-once.js';
import {
  findDefaultCard,
  ledgerInOrder,
  pageLedgerEntries,
  readFunds,
} from '../../domain/money/money-reads.js';
import type { PortalView } from '../context.js';
import { auditActor, redirectWithFlash, requirePermission } from '../context.js';
import { formatMoney } from '../format.js';
import { csrfField, formValue } from '../forms.js';
import { sendPage } from '../layout.js';
import { can } from '../permissions.js';
import { minorUnitsOf } from './amount-input.js';
import type { FormState } from './billing-view.js';
import { EMPTY_FORM, billingBody, maskedCard } from './billing-view.js';
import { ledgerCsv } from './ledger-csv.js';
import { pageParam } from './money-view.js';

// Billing: the saved card (masked), a new card with its first payment, top-up and the ledger.
// Saving a card and topping up need billing.write (Admin, Finance); reading needs read. Both
// forms carry an idempotency key generated when they are rendered, so a double click or a
// resubmission moves money once.

const LEDGER_PER_PAGE = 50;

interface BillingState {
  readonly page?: number;
  readonly cardForm?: FormState;
  readonly topUpForm?: FormState;
  /** Keys to render again (a submission still running must not get a fresh one). */
  readonly cardKey?: string;
  readonly topUpKey?: string;
  readonly status?: number;
}

async function sendBilling(
  deps: AppDeps,
  reply: FastifyReply,
  view: PortalView,
  state: BillingState,
): Promise<FastifyReply> {
  const org = view.organisation;
  const page = state.page ?? 1;
  const [funds, card, ledger] = await Promise.all([
    readFunds(deps.store.db, org.id),
    findDefaultCard(deps.store.db, org.id),
    pageLedgerEntries(deps.store.db, org.id, {
      offset: (page - 1) * LEDGER_PER_PAGE,
      limit: LEDGER_PER_PAGE,
    }),
  ]);
  const body = billingBody(
    {
      balance: funds?.balance ?? 0,
      testCredit: funds?.testCredit ?? 0,
      testCreditExpiry: funds?.testCreditExpiry ?? null,
      card,
      entries: ledger.entries,
      total: ledger.total,
      page,
      perPage: LEDGER_PER_PAGE,
      canWrite: can(view.user.role, 'billing.write'),
      simulator: deps.config.mode === 'simulator',
      csrf: csrfField(view),
      cardKey: state.cardKey ?? deps.random.uuid(),
      topUpKey: state.topUpKey ?? deps.random.uuid(),
      cardForm: state.cardForm ?? EMPTY_FORM,
      topUpForm: state.topUpForm ?? EMPTY_FORM,
    },
    { currency: org.currency, timeZone: view.user.timeZone },
  );
  return sendPage(reply, view, {
    title: 'Billing',
    current: 'billing',
    body,
    ...(state.status === undefined ? {} : { status: state.status }),
  });
}

/** The field a card form error belongs to, from the start of its message. */
function cardErrorField(message: string): string {
  if (message.startsWith('card number') || message.startsWith('card declined')) return 'number';
  if (message.startsWith('expiry') || message.startsWith('card expiry')) return 'expiry';
  if (message.startsWith('security code')) return 'cvc';
  if (message.includes('amount')) return 'payment';
  return 'form';
}

/** A submission still running keeps its key: a fresh one could charge twice. */
function keyAfter(error: DomainError, key: string): string | undefined {
  return error.code === 'idempotency_in_progress' ? key : undefined;
}

async function postTopUp(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'billing.write');
  const org = view.organisation;
  const amount = formValue(request.body, 'amount');
  const key = formValue(request.body, 'idempotencyKey');
  try {
    const minor = minorUnitsOf(amount, org.currency, deps.config);
    const done = await topUpOnce(deps, org, minor, key, auditActor(request), request.log);
    const { amount: paid, balance } = done.result;
    const message =
      `Topped up ${formatMoney(paid, org.currency)}; the balance is now ` +
      `${formatMoney(balance, org.currency)}.`;
    return redirectWithFlash(request, reply, '/portal/billing', message);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const field = error.message.includes('amount') ? 'amount' : 'form';
    return sendBilling(deps, reply, view, {
      topUpForm: { values: { amount }, errors: { [field]: error.message } },
      topUpKey: keyAfter(error, key),
      status: error.status,
    });
  }
}

async function postCard(deps: AppDeps, request: FastifyRequest, reply: FastifyReply) {
  const view = requirePermission(request, 'billing.write');
  const org = view.organisation;
  const values = {
    number: formValue(request.body, 'number'),
    expiry: formValue(request.body, 'expiry'),
    payment: formValue(request.body, 'payment'),
  };
  const key = formValue(request.body, 'idempotencyKey');
  try {
    const minor = minorUnitsOf(values.payment, org.currency, deps.config);
    const form = { ...values, cvc: formValue(request.body, 'cvc'), amount: minor };
    const done = await saveCardWithPayment(deps, org, form, key, auditActor(request), request.log);
    const message =
      `Card saved: ${maskedCard(done.card)}. Paid ${formatMoney(done.result.amount, org.currency)}; ` +
      `the balance is now ${formatMoney(done.result.balance, org.currency)}.`;
    return redirectWithFlash(request, reply, '/portal/billing', message);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return sendBilling(deps, reply, view, {
      cardForm: { values, errors: { [cardErrorField(error.message)]: error.message } },
      cardKey: keyAfter(error, key),
      status: error.status,
    });
  }
}

export function registerBillingPage(app: FastifyInstance, deps: AppDeps): void {
  app.get('/portal/billing', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const page = pageParam((request.query as Record<string, unknown> | undefined)?.['page']);
    return sendBilling(deps, reply, view, { page });
  });
  app.get('/portal/billing/ledger.csv', async (request, reply) => {
    const view = requirePermission(request, 'read');
    const org = view.organisation;
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="ledger-${org.id}.csv"`)
      .send(ledgerCsv(ledgerInOrder(deps.store.db, org.id), org.currency));
  });
  app.post('/portal/billing/top-up', (request, reply) => postTopUp(deps, request, reply));
  app.post('/portal/billing/card', (request, reply) => postCard(deps, request, reply));
}
