import { createHash } from 'node:crypto';
import type { Bundle } from './bundle.js';
import { allCountries } from './countries.js';
import { catalogueItem } from './catalogue-view.js';

/**
 * A bundle's JSON as GET /catalogue answers it (UTF-8): the Bundle view in the response schema's
 * field order, as the route would serialise it. Stored with the bundle (its stored JSON), so a
 * catalogue page is its rows' bytes joined.
 */
export function bundleJson(bundle: Bundle): Buffer {
  return Buffer.from(JSON.stringify(catalogueItem(bundle)));
}

/**
 * A digest of this version's encoder: what bundleJson makes of a bundle with every field set and
 * every country as base and roaming country. Stored beside the JSON it wrote; a start that finds
 * another digest encodes every bundle again (seed.ts), so JSON written by an older release (other
 * country names or regions, another view) is never served.
 */
export function bundleJsonFingerprint(): string {
  const isos = allCountries().map((c) => c.iso);
  const probe: Bundle = {
    name: 'fingerprint',
    description: 'fingerprint "\u00e9"',
    groups: ['Fingerprint'],
    countries: isos,
    roaming: isos,
    dataAmount: 1000,
    duration: 7,
    speed: ['4G', '5G'],
    autostart: true,
    unlimited: false,
    price: 1.5,
  };
  return createHash('sha256').update(bundleJson(probe)).digest('hex');
}
