import type { Executor } from '../../store/database.js';
import { listAssignmentsByReference } from '../../store/repositories/assignment-repository.js';
import { listEsimsByIccid } from '../../store/repositories/esim-repository.js';
import { insertOrder } from '../../store/repositories/order-repository.js';
import type { StoredOrder } from '../../store/repositories/order-repository.js';
import type { Esim } from './esim.js';
import type { Assignment } from './lifecycle/assignment.js';
import { iso } from '../../clock.js';
import type { AssignmentContext } from './lifecycle/assign.js';
import { applyFromInventory } from './lifecycle/apply-from-inventory.js';
import { checkIccid } from './owned-esim.js';

// Applying inventory to an eSIM (POST /esims/apply): a use case of a transaction, run by the
// use-case runner with the request's Idempotency-Key record in the same transaction.

/** One more bundle of an apply: `repeat` units of it, on a new eSIM (or the apply's `iccid`). */
export interface ApplyEntry {
  readonly bundleName: string;
  readonly repeat: number;
}

export interface ApplyBundleInput {
  readonly organisationId: string;
  /** The organisation's bundle groups: what it may see in the catalogue. */
  readonly groups: readonly string[];
  readonly bundleName: string;
  /** An eSIM the organisation owns; undefined issues a new one. */
  readonly iccid: string | undefined;
  readonly repeat: number;
  /**
   * Further bundles of the same apply, after the first: each on an eSIM of its own, newly issued
   * (or all on `iccid` when it is given). One reference, all or nothing.
   */
  readonly more?: readonly ApplyEntry[];
  /**
   * Also record the apply as an order of the organisation (reference = the apply reference, one
   * `bundleAssignment` line per assignment, nothing charged: the units were paid when bought).
   */
  readonly recordOrder?: { readonly currency: string };
  /** The apply's reference when it was fixed before (an apply processed in the background). */
  readonly reference?: string;
}

export interface AppliedBundle {
  /** The eSIM of the first assignment. */
  readonly esim: Esim;
  /** Every eSIM the apply went onto, by ICCID. */
  readonly esims: ReadonlyMap<string, Esim>;
  /** In the order they were made. */
  readonly assignments: readonly Assignment[];
  /** The reference of this apply (a UUID), shared by its assignments. */
  readonly reference: string;
}

/** Every entry of an apply: the first (`bundleName`, `repeat`) and the `more` after it. */
export function applyEntries(input: ApplyBundleInput): ApplyEntry[] {
  return [{ bundleName: input.bundleName, repeat: input.repeat }, ...(input.more ?? [])];
}

/** How many bundle units an apply takes from inventory, all entries together. */
export function applyUnits(input: ApplyBundleInput): number {
  return applyEntries(input).reduce((n, e) => n + e.repeat, 0);
}

/** The item of an apply's order line: the assignment's place in the apply, as live writes it. */
export const assignmentItem = (reference: string, n: number): string => `${reference}-${n}`;

function applyOrder(
  input: ApplyBundleInput & { readonly recordOrder: { readonly currency: string } },
  reference: string,
  assignments: readonly Assignment[],
  at: string,
): StoredOrder {
  const units = assignments.length;
  return {
    reference,
    organisationId: input.organisationId,
    status: 'completed',
    statusMessage: `Bundles applied from inventory: ${units} bundle${units === 1 ? '' : 's'} assigned`,
    total: 0,
    currency: input.recordOrder.currency,
    assign: true,
    createdAt: at,
    items: assignments.map((a, i) => ({
      lineNo: i + 1,
      type: 'bundleAssignment',
      item: assignmentItem(reference, i),
      quantity: 0,
      pricePerUnit: 0,
      subTotal: 0,
      iccids: [a.iccid],
    })),
  };
}

export async function applyBundle(
  tx: Executor,
  deps: AssignmentContext,
  input: ApplyBundleInput,
): Promise<AppliedBundle> {
  if (input.iccid !== undefined) checkIccid(input.iccid, 'body field iccid');
  const reference = input.reference ?? deps.random.orderedUuid();
  const esims = new Map<string, Esim>();
  const assignments: Assignment[] = [];
  for (const entry of applyEntries(input)) {
    const result = await applyFromInventory(tx, deps, {
      organisationId: input.organisationId,
      groups: input.groups,
      iccid: input.iccid,
      bundleName: entry.bundleName,
      repeat: entry.repeat,
      reference,
    });
    esims.set(result.esim.iccid, result.esim);
    assignments.push(...result.assignments);
  }
  const [first] = assignments;
  const esim = first === undefined ? undefined : esims.get(first.iccid);
  if (esim === undefined) throw new Error('an apply made no assignment');
  if (input.recordOrder !== undefined) {
    const order = applyOrder(
      { ...input, recordOrder: input.recordOrder },
      reference,
      assignments,
      iso(deps.clock.now()),
    );
    await insertOrder(tx, order);
  }
  return { esim, esims, assignments, reference };
}

/**
 * An apply as it stands now, read back by its reference (one processed in the background,
 * answered to the retry); undefined when the organisation has no such apply.
 */
export async function loadAppliedBundle(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<AppliedBundle | undefined> {
  const assignments = await listAssignmentsByReference(db, organisationId, reference);
  // In the order they were made (assignment ids are ordered in time, as createdAt is).
  assignments.sort((a, b) =>
    a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
  );
  const [first] = assignments;
  if (first === undefined) return undefined;
  const rows = await listEsimsByIccid(db, organisationId, [
    ...new Set(assignments.map((a) => a.iccid)),
  ]);
  const esims = new Map(rows.map((r) => [r.iccid, r]));
  const esim = esims.get(first.iccid);
  return esim === undefined ? undefined : { esim, esims, assignments, reference };
}
