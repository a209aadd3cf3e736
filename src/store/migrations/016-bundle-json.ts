import type { Kysely } from 'kysely';
import type { DialectName } from '../database.js';
import type { MigrationStep } from './index.js';

// bundles.item_json: the bundle as GET /catalogue answers it (the Bundle view's JSON, UTF-8), so
// a page is its rows' bytes joined, read in the same statement that picks the page. Written with
// the row by every catalogue write (domain/catalogue/bundle-json.ts encodes it). Null for rows
// written before this migration: the service encodes those when it starts, and until then a page
// encodes them from their columns.
// catalogue_state.json_fingerprint: a digest of what the encoder of the version that stored the
// JSON makes of a bundle naming every country. A start whose encoder makes something else (a
// release changed country names, regions or the view) clears the stored JSON and encodes it
// again, so no release has to remember to.

export const bundleJson = (dialect: DialectName): MigrationStep => ({
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('bundles')
      .addColumn('item_json', dialect === 'postgres' ? 'bytea' : 'blob')
      .execute();
    await db.schema.alterTable('catalogue_state').addColumn('json_fingerprint', 'text').execute();
  },
});
