import type { CatalogueItem } from '../../domain/catalogue/catalogue-view.js';
import type { Esim, EsimActivity, EsimDetail } from '../../domain/esims/esim.js';
import type { Assignment } from '../../domain/esims/lifecycle/assignment.js';
import type { RevokeOutcome } from '../../domain/esims/revoke-bundle.js';
import type { RefundResult } from '../../domain/inventory/inventory-refund.js';
import type { TopUpResult } from '../../domain/money/top-up.js';
import type { OrderRead } from '../../domain/orders/order-reads.js';
import type { PlacedOrder } from '../../domain/orders/placement.js';
import type { Organisation } from '../../domain/organisations/organisation.js';

// What a route hands its version's presenter, by operation: the domain result, and the typed
// inputs of the request a version may show (the caller's address, the flags of the order lines,
// the install links asked for). Nothing else of the request reaches a presenter.

/** An order read back: the order and the activation details of its eSIMs (the domain's). */
export type { OrderRead };

/** A placed (or only validated) order, with what the request said beside it. */
export interface PlacedOrderResult {
  /** `balanceAfter` is the balance the payment left; undefined where it was not read. */
  readonly placed: PlacedOrder;
  /** The address the order came from. */
  readonly sourceIp: string;
  /** `allowReassign` of each line of the request, in order. */
  readonly allowReassign: readonly boolean[];
}

/** A result whose money is in minor units of `currency`. */
export interface InCurrency<R> {
  readonly result: R;
  readonly currency: string;
}

export interface OrganisationUser {
  readonly firstName: string;
  readonly lastName: string;
  readonly role: string;
  readonly emailAddress: string;
  readonly phoneNumber: string;
  readonly timeZone: string;
}

/** The caller's organisation, with the key it reads and its users. */
export interface OrganisationRead {
  readonly organisation: Organisation;
  readonly apiKey: string;
  readonly users: readonly OrganisationUser[];
}

/** One eSIM, with the install links additionalFields asked for. */
export interface EsimRead {
  readonly esim: EsimDetail;
  readonly appleInstallUrl?: string;
  readonly androidInstallUrl?: string;
}

/** A page of eSIMs with their activity, and the paging counters. */
export interface EsimPage {
  readonly esims: readonly { readonly esim: Esim; readonly activity?: EsimActivity }[];
  /** eSIMs matching the request, over all pages. */
  readonly total: number;
  readonly perPage: number;
}

/** An entry of an eSIM's history. */
export interface HistoryItem {
  readonly name: string;
  /** Empty for an entry about the eSIM itself. */
  readonly bundle: string;
  /** The assignment's state after the event; empty when none. */
  readonly bundleState: string;
  readonly alertType: string;
  readonly at: string;
}

/** A bundle on an eSIM with its assignments, in the order assigned. */
export interface EsimBundleRead {
  readonly name: string;
  readonly description: string;
  readonly assignments: readonly Assignment[];
}

export interface Compatibility {
  readonly iccid: string;
  readonly bundle: string;
  readonly compatible: boolean;
}

/** An SMS the network took for an eSIM. */
export interface SmsSent {
  readonly iccid: string;
}

/** The result of each operation whose answer differs between versions, by operationId. */
export interface Results {
  getOrganisation: OrganisationRead;
  topUpBalance: InCurrency<TopUpResult>;
  placeOrder: PlacedOrderResult;
  getOrder: OrderRead;
  listOrders: readonly OrderRead[];
  refundInventory: InCurrency<RefundResult>;
  getCatalogueBundle: InCurrency<CatalogueItem>;
  listEsims: EsimPage;
  getEsim: EsimRead;
  getEsimHistory: readonly HistoryItem[];
  listEsimBundles: readonly EsimBundleRead[];
  getEsimBundle: EsimBundleRead;
  checkEsimCompatibility: Compatibility;
  revokeBundleByName: InCurrency<RevokeOutcome>;
  revokeAssignment: InCurrency<RevokeOutcome>;
  sendSms: SmsSent;
}

export type Operation = keyof Results;
