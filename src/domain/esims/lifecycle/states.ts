// The bundle assignment states of spec part 3 and the only transitions between them
// (docs/interface.md, "Bundle assignment states"). Nothing else in the code base writes a state:
// src/domain/esims/lifecycle/transition.ts refuses any move that is not in TRANSITIONS.

export const BUNDLE_STATES = [
  'Processing',
  'Queued',
  'Active',
  'Depleted',
  'Expired',
  'Revoked',
] as const;

export type BundleState = (typeof BUNDLE_STATES)[number];

export const TRANSITIONS: { readonly [From in BundleState]: readonly BundleState[] } = {
  Processing: ['Queued', 'Revoked'],
  Queued: ['Active', 'Expired', 'Revoked'],
  Active: ['Depleted', 'Expired', 'Revoked'],
  Depleted: ['Expired'],
  Expired: [],
  Revoked: [],
};

/** The eSIM history entry written when an assignment enters each state. */
export const HISTORY_NAME: { readonly [S in BundleState]: string } = {
  Processing: 'Bundle Applied',
  Queued: 'Bundle Queued',
  Active: 'Bundle Activated',
  Depleted: 'Bundle Depleted',
  Expired: 'Bundle Expired',
  Revoked: 'Bundle Revoked',
};

export function isBundleState(value: string): value is BundleState {
  return (BUNDLE_STATES as readonly string[]).includes(value);
}

export function canTransition(from: string, to: BundleState): boolean {
  return isBundleState(from) && TRANSITIONS[from].includes(to);
}
