// An organisation as every layer above the store sees it: groups as a list, and no key columns
// (the API key's hash and its encrypted copy stay in the store, read only by authentication and
// by the callback signer).

export const CALLBACK_VERSIONS = ['V2', 'V3'] as const;
export type CallbackVersion = (typeof CALLBACK_VERSIONS)[number];

export interface Organisation {
  readonly id: string;
  readonly name: string;
  readonly taxLiable: string;
  readonly addr1: string;
  readonly addr2: string;
  readonly city: string;
  readonly country: string;
  readonly postcode: string;
  /** '' when none is set. */
  readonly callbackUrl: string;
  readonly callbackVersion: CallbackVersion;
  readonly notes: string;
  /** The bundle groups whose bundles the organisation sees and may order. */
  readonly groups: readonly string[];
  readonly currency: string;
  /** Minor units of `currency`. */
  readonly balance: number;
  readonly testCredit: number;
  readonly testCreditExpiry: string | null;
  readonly businessType: string;
  readonly website: string;
  readonly productDescription: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}
