import type { Bundle } from '../bundle.js';
import { catalogueItem } from './view.js';

/**
 * A bundle's JSON as GET /catalogue answers it (UTF-8): the Bundle view in the response schema's
 * field order, as the route would serialise it. Stored with the bundle (bundles.item_json), so a
 * catalogue page is its rows' bytes joined.
 */
export function bundleJson(bundle: Bundle): Buffer {
  return Buffer.from(JSON.stringify(catalogueItem(bundle)));
}
