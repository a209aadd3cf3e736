import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { iso } from '../../../clock.js';
import { findBundleByName } from '../../../store/repositories/catalogue-repository.js';
import type { InventoryBatchRow } from '../../../store/repositories/inventory-repository.js';
import { listAvailableBatches } from '../../../store/repositories/inventory-repository.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';

const Batch = Type.Object({
  id: Type.Integer({ description: 'Purchase batch id (one batch per bundle per order).' }),
  total: Type.Integer({ description: 'Units bought in this batch.' }),
  remaining: Type.Integer({ description: 'Units not yet applied to an eSIM.' }),
  expiry: Type.String({ description: 'When the unapplied units lapse, RFC 3339 UTC.' }),
});

const InventoryBundle = Type.Object({
  name: Type.String({ description: 'Bundle name as in the catalogue.' }),
  desc: Type.String({ description: 'Bundle description.' }),
  available: Type.Array(Batch, {
    description: 'Unexpired batches with units left, oldest first (applied in this order).',
  }),
  countries: Type.Array(Type.String(), { description: 'ISO 3166-1 alpha-2 base countries.' }),
  data: Type.Integer({ description: 'Data per unit in decimal megabytes; -1 when unlimited.' }),
  duration: Type.Integer({ description: 'Validity once started, in durationUnit.' }),
  durationUnit: Type.String({ description: 'Always `day`.' }),
  autostart: Type.Boolean(),
  unlimited: Type.Boolean(),
  speed: Type.Array(Type.String(), { description: 'Among 2G, 3G, 4G, 5G.' }),
});

const schema = {
  tags: ['Inventory'],
  operationId: 'getInventory',
  summary: 'List the bundles the organisation bought and has not applied yet',
  description:
    'Grouped by bundle, with one `available` entry per purchase batch. Batches that are used up ' +
    'or expired are left out.',
  security: apiKeySecurity,
  response: {
    200: Type.Object({ bundles: Type.Array(InventoryBundle) }),
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerGetInventory(app: Api, deps: AppDeps): void {
  app.get('/inventory', { schema }, async (request) => {
    const db = deps.store.db;
    const batches = await listAvailableBatches(db, request.organisation.id, iso(deps.clock.now()));
    const byBundle = new Map<string, InventoryBatchRow[]>();
    for (const b of batches) byBundle.set(b.bundleName, [...(byBundle.get(b.bundleName) ?? []), b]);
    const bundles = [];
    for (const [name, list] of byBundle) {
      // A bundle since removed from the catalogue keeps its name and batches.
      const bundle = await findBundleByName(db, name);
      bundles.push({
        name,
        desc: bundle?.description ?? '',
        available: list.map((b) => ({
          id: b.id,
          total: b.total,
          remaining: b.remaining,
          expiry: b.expiry,
        })),
        countries: [...(bundle?.countries ?? [])],
        data: bundle === undefined ? 0 : bundle.unlimited ? -1 : bundle.dataAmount,
        duration: bundle?.duration ?? 0,
        durationUnit: 'day',
        autostart: bundle?.autostart ?? false,
        unlimited: bundle?.unlimited ?? false,
        speed: [...(bundle?.speed ?? [])],
      });
    }
    return { bundles };
  });
}
