// A catalogue bundle as the domain sees it (units: dataAmount in decimal MB, -1 when unlimited;
// duration in days; price in minor units of the catalogue currency).
export interface Bundle {
  readonly name: string;
  readonly description: string;
  readonly groups: readonly string[];
  readonly countries: readonly string[]; // ISO2 base countries
  readonly roaming: readonly string[]; // ISO2 roaming countries
  readonly dataAmount: number;
  readonly duration: number;
  readonly speed: readonly string[];
  readonly autostart: boolean;
  readonly unlimited: boolean;
  readonly price: number;
}

export const BYTES_PER_MB = 1_000_000;

/** Bytes a bundle carries, -1 when unlimited. */
export function bundleBytes(bundle: Pick<Bundle, 'dataAmount' | 'unlimited'>): number {
  return bundle.unlimited ? -1 : bundle.dataAmount * BYTES_PER_MB;
}
