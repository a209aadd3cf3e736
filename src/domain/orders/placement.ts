import { addDays, iso } from '../../clock.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { RandomSource } from '../../random.js';
import type { Db, Executor } from '../../store/database.js';
import { findBundleByName } from '../../store/repositories/catalogue-repository.js';
import { insertBatch } from '../../store/repositories/inventory-repository.js';
import type { NewBatch } from '../../store/repositories/inventory-repository.js';
import { readFunds } from '../../store/repositories/ledger-repository.js';
import type { EsimActivation, StoredOrder } from '../../store/repositories/order-repository.js';
import { findActivations, insertOrder } from '../../store/repositories/order-repository.js';
import { listEsimsByIccid } from '../../store/repositories/esim-repository.js';
import type { Bundle } from '../catalogue/bundle.js';
import { badRequest, notFound } from '../errors/error-codes.js';
import { issueEsim } from '../esims/esim-issuer.js';
import type { Funds } from '../money/ledger.js';
import { available, charge, insufficientFunds } from '../money/ledger.js';
import { createAssignment } from '../esims/lifecycle/assign.js';
import type { Organisation } from '../organisations/organisation.js';
import type { PricedLine } from './pricing.js';
import { priceLines } from './pricing.js';
import type { OrderLineInput, OrderRequest } from './validation.js';
import { checkOrderRequest } from './validation.js';

// Placing an order. `validateOrder` runs every check (names, groups, quantities, ICCIDs owned,
// funds) and writes nothing. The use case `placeOrder` does the same checks and all the writes
// in the transaction the use-case runner gives it: the order, its lines, inventory batches or eSIMs and assignments, and
// last the debit, so the balance row is locked for as short a time as possible. Any failure
// rolls all of it back.

export interface OrderDeps {
  readonly store: { readonly db: Db };
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config: Config;
}

export interface OrderingOrganisation {
  readonly id: string;
  readonly currency: string;
  readonly groups: readonly string[];
  /** Balances as read when the caller was authenticated; a hint, re-checked under lock. */
  readonly funds?: Funds;
}

/** The caller's organisation as order placement needs it. */
export function orderingOrganisation(org: Organisation): OrderingOrganisation {
  return {
    id: org.id,
    currency: org.currency,
    groups: org.groups,
    funds: {
      balance: org.balance,
      testCredit: org.testCredit,
      testCreditExpiry: org.testCreditExpiry,
    },
  };
}

export interface PlacedOrder {
  readonly order: StoredOrder;
  /** Activation details of every eSIM the order assigned to, by ICCID. */
  readonly activations: ReadonlyMap<string, EsimActivation>;
  /**
   * A placed order: the balance its payment left (its journal entry's balance after, minor
   * units); null when nothing was charged (a free order). Undefined for a validation.
   */
  readonly balanceAfter?: number | null;
}

interface Prepared {
  readonly lines: PricedLine[];
  readonly total: number;
  readonly activations: Map<string, EsimActivation>;
}

async function resolveBundles(
  db: Executor,
  org: OrderingOrganisation,
  lines: readonly OrderLineInput[],
): Promise<Map<string, Bundle>> {
  const bundles = new Map<string, Bundle>();
  for (const [i, line] of lines.entries()) {
    if (bundles.has(line.item)) continue;
    const bundle = await findBundleByName(db, line.item);
    // A bundle outside the organisation's groups reads exactly like one that does not exist.
    if (bundle === undefined || !bundle.groups.some((g) => org.groups.includes(g))) {
      throw badRequest(
        `order[${i}].item: bundle "${line.item}" is not available to this organisation`,
        'unknown_bundle',
      );
    }
    bundles.set(line.item, bundle);
  }
  return bundles;
}

async function prepare(
  db: Executor,
  org: OrderingOrganisation,
  request: OrderRequest,
  config: Config,
): Promise<Prepared> {
  checkOrderRequest(request, config);
  const bundles = await resolveBundles(db, org, request.order);
  const { lines, total } = priceLines(request.order, bundles);
  const listed = request.order.flatMap((l) => l.iccids ?? []);
  const activations = await findActivations(db, org.id, listed, true);
  for (const [i, line] of request.order.entries()) {
    for (const [j, iccid] of (line.iccids ?? []).entries()) {
      if (activations.has(iccid)) continue;
      // The organisation's own deleted eSIM says so (docs/esim-state.md); another
      // organisation's eSIM reads exactly like one that does not exist.
      const [own] = await listEsimsByIccid(db, org.id, [iccid]);
      if (own?.state === 'deactivated') {
        throw badRequest(
          `order[${i}].iccids[${j}]: eSIM ${iccid} is deactivated and cannot take bundles`,
          'esim_deactivated',
        );
      }
      throw badRequest(`order[${i}].iccids[${j}]: eSIM ${iccid} not found`, 'unknown_iccid');
    }
  }
  return { lines, total, activations };
}

function statusMessage(request: OrderRequest, units: number, newEsims: number): string {
  const bundles = `${units} bundle${units === 1 ? '' : 's'}`;
  if (request.type === 'validate') {
    return `Order is valid: ${bundles}; nothing was charged or stored`;
  }
  if (!request.assign) return `Order completed: ${bundles} added to inventory`;
  return `Order completed: ${bundles} assigned (${newEsims} new eSIM${newEsims === 1 ? '' : 's'})`;
}

/** The order record of the prepared lines; `lineIccids[i]` are the eSIMs line i went onto. */
function orderRecord(
  org: OrderingOrganisation,
  request: OrderRequest,
  prepared: Prepared,
  outcome: {
    reference: string;
    status: 'validated' | 'completed';
    createdAt: string;
    newEsims: number;
    lineIccids: readonly (readonly string[])[];
  },
): StoredOrder {
  const units = prepared.lines.reduce((n, l) => n + l.input.quantity, 0);
  return {
    reference: outcome.reference,
    organisationId: org.id,
    status: outcome.status,
    statusMessage: statusMessage(request, units, outcome.newEsims),
    total: prepared.total,
    currency: org.currency,
    assign: request.assign,
    createdAt: outcome.createdAt,
    items: prepared.lines.map((l, i) => ({
      lineNo: l.lineNo,
      type: 'bundle',
      item: l.bundle.name,
      quantity: l.input.quantity,
      pricePerUnit: l.pricePerUnit,
      subTotal: l.subTotal,
      iccids: [...(outcome.lineIccids[i] ?? [])],
    })),
  };
}

async function validateOnly(
  deps: OrderDeps,
  org: OrderingOrganisation,
  request: OrderRequest,
): Promise<PlacedOrder> {
  const db = deps.store.db;
  const now = deps.clock.now();
  const prepared = await prepare(db, org, request, deps.config);
  const funds = await readFunds(db, org.id);
  if (funds === undefined) throw notFound(`organisation ${org.id} not found`);
  if (available(funds, now) < prepared.total) {
    throw insufficientFunds(prepared.total, funds, org.currency, now);
  }
  return {
    order: orderRecord(org, request, prepared, {
      reference: '',
      status: 'validated',
      createdAt: iso(now),
      newEsims: 0,
      lineIccids: prepared.lines.map((l) => l.input.iccids ?? []),
    }),
    activations: prepared.activations,
  };
}

/** The order a use case places: who orders, and what (`type: 'transaction'`). */
export interface PlaceOrderInput {
  readonly org: OrderingOrganisation;
  readonly request: OrderRequest;
  /** The order's reference when it was fixed before (an order processed in the background). */
  readonly reference?: string;
}

/** Checks an order (`type: 'validate'`): every check placing it makes, and nothing is written. */
export function validateOrder(
  deps: OrderDeps,
  org: OrderingOrganisation,
  request: OrderRequest,
): Promise<PlacedOrder> {
  return validateOnly(deps, org, request);
}

/** The inventory batch a line buys: all its units, none applied yet. */
function lineBatch(
  org: OrderingOrganisation,
  line: PricedLine,
  placing: { reference: string; at: string; expiry: string },
): NewBatch {
  return {
    organisationId: org.id,
    bundleName: line.bundle.name,
    orderReference: placing.reference,
    total: line.input.quantity,
    remaining: line.input.quantity,
    expiry: placing.expiry,
    at: placing.at,
  };
}

/** The batch of one line, and its units on eSIMs when the order assigns them. */
async function placeLine(
  trx: Executor,
  deps: OrderDeps,
  org: OrderingOrganisation,
  assign: boolean,
  line: PricedLine,
  placing: {
    reference: string;
    at: string;
    expiry: string;
    activations: Map<string, EsimActivation>;
  },
): Promise<{ iccids: string[]; newEsims: number }> {
  const { reference, activations } = placing;
  const quantity = line.input.quantity;
  // Assigned units still get a batch (nothing left in it): every purchase is a batch, and each
  // assignment records the batch it was bought in.
  const batchId = await insertBatch(trx, {
    ...lineBatch(org, line, placing),
    remaining: assign ? 0 : quantity,
  });
  const iccids: string[] = [];
  let newEsims = 0;
  if (!assign) return { iccids, newEsims };
  for (let unit = 0; unit < quantity; unit += 1) {
    let iccid = line.input.iccids?.[unit];
    const newEsim = iccid === undefined;
    if (iccid === undefined) {
      const esim = await issueEsim(trx, deps, org.id, reference);
      iccid = esim.iccid;
      activations.set(iccid, {
        iccid,
        matchingId: esim.matchingId,
        smdpAddress: esim.smdpAddress,
      });
      newEsims += 1;
    }
    await createAssignment(trx, deps, {
      organisationId: org.id,
      iccid,
      bundle: line.bundle,
      reference,
      batchId,
      newEsim,
    });
    iccids.push(iccid);
  }
  return { iccids, newEsims };
}

/**
 * The use case of placing an order (`type: 'transaction'`), in the caller's transaction: every
 * check, then the order, its batches, eSIMs and assignments, and last the debit.
 */
export async function placeOrder(
  trx: Executor,
  deps: OrderDeps,
  input: PlaceOrderInput,
): Promise<PlacedOrder> {
  const { org, request } = input;
  const now = deps.clock.now();
  const at = iso(now);
  const expiry = iso(addDays(now, deps.config.inventoryValidityDays));
  const reference = input.reference ?? deps.random.orderedUuid();
  const prepared = await prepare(trx, org, request, deps.config);
  const activations = prepared.activations;
  const lineIccids: string[][] = [];
  let newEsims = 0;
  // Into inventory: each line's batch is written with the order (one statement on PostgreSQL).
  // Assigned: each line's batch first, as its assignments record it.
  const inventory: NewBatch[] = [];
  for (const line of prepared.lines) {
    if (!request.assign) {
      inventory.push(lineBatch(org, line, { reference, at, expiry }));
      lineIccids.push([]);
      continue;
    }
    const placing = { reference, at, expiry, activations };
    const placed = await placeLine(trx, deps, org, request.assign, line, placing);
    lineIccids.push(placed.iccids);
    newEsims += placed.newEsims;
  }
  const order = orderRecord(org, request, prepared, {
    reference,
    status: 'completed',
    createdAt: at,
    newEsims,
    lineIccids,
  });
  await insertOrder(trx, order, inventory);
  let balanceAfter: number | null = null;
  if (prepared.total > 0) {
    const after = await charge(trx, {
      organisationId: org.id,
      currency: org.currency,
      amount: prepared.total,
      kind: 'order',
      reference,
      description: `order ${reference}`,
      at: now,
      snapshot: org.funds,
    });
    balanceAfter = after.balance;
  }
  return { order, activations, balanceAfter };
}
