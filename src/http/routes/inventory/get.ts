import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import { iso } from '../../../clock.js';
import type { Bundle } from '../../../domain/catalogue/bundle.js';
import type { InventoryItem } from '../../../domain/inventory/inventory-view.js';
import { inventoryItems } from '../../../domain/inventory/inventory-view.js';
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
    'Grouped by bundle (by name), with one `available` entry per purchase batch. Batches that ' +
    'are used up or expired are left out. The answer is streamed as it is read (chunked ' +
    'transfer encoding, no Content-Length), so its size has no limit: about 75 bytes per batch.',
  security: apiKeySecurity,
  response: {
    200: Type.Object({ bundles: Type.Array(InventoryBundle) }),
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

// The answer is written as it is read, in the bytes the response schema's serialiser would
// write (fields in schema order, no spaces): the head of a bundle, its batches, then its tail.
// Written text is gathered into pieces of about this size before it goes to the socket.
const PIECE_BYTES = 64 * 1024;

function bundleHead(name: string, bundle: Bundle | undefined): string {
  return `{"name":${JSON.stringify(name)},"desc":${JSON.stringify(bundle?.description ?? '')},"available":[`;
}

function bundleTail(bundle: Bundle | undefined): string {
  const rest = JSON.stringify({
    countries: bundle?.countries ?? [],
    // A bundle since removed from the catalogue keeps its name and batches.
    data: bundle === undefined ? 0 : bundle.unlimited ? -1 : bundle.dataAmount,
    duration: bundle?.duration ?? 0,
    durationUnit: 'day',
    autostart: bundle?.autostart ?? false,
    unlimited: bundle?.unlimited ?? false,
    speed: bundle?.speed ?? [],
  });
  return `],${rest.slice(1)}`;
}

/** The JSON text of the inventory, in pieces, from its items in order. */
export async function* inventoryJson(items: AsyncIterable<InventoryItem>): AsyncGenerator<string> {
  let piece = '{"bundles":[';
  let open: { bundle: Bundle | undefined; batches: number } | undefined;
  let bundles = 0;
  for await (const item of items) {
    if (item.kind === 'bundle') {
      if (open !== undefined) piece += bundleTail(open.bundle);
      piece += (bundles > 0 ? ',' : '') + bundleHead(item.name, item.bundle);
      open = { bundle: item.bundle, batches: 0 };
      bundles += 1;
    } else if (open !== undefined) {
      const b = item.batch;
      piece += `${open.batches > 0 ? ',' : ''}{"id":${b.id},"total":${b.total},"remaining":${b.remaining},"expiry":${JSON.stringify(b.expiry)}}`;
      open.batches += 1;
    }
    if (piece.length >= PIECE_BYTES) {
      yield piece;
      piece = '';
    }
  }
  if (open !== undefined) piece += bundleTail(open.bundle);
  yield `${piece}]}`;
}

export function registerGetInventory(app: Api, deps: AppDeps): void {
  app.get('/inventory', { schema }, async (request, reply) => {
    const items = inventoryItems(deps.store.db, request.organisation.id, iso(deps.clock.now()));
    const json = inventoryJson(items);
    // The first piece is read before the status is sent, so a failing first read is a 500 with
    // the error body; a failure later can only cut the answer short (the socket is closed).
    const first = await json.next();
    async function* pieces(): AsyncGenerator<string> {
      if (first.done !== true) yield first.value;
      yield* json;
    }
    // Not an object mode stream: Fastify sends it as it is, past the response serialiser.
    const body = Readable.from(pieces(), { objectMode: false });
    return reply.type('application/json; charset=utf-8').send(body);
  });
}
