import { Type } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_PER_PAGE } from '../../../domain/catalogue/query.js';
import { BundleSchema } from '../../routes/catalogue/bundle-schema.js';
import { pagingHeaders } from '../../paging.js';
import { toMajor } from '../money.js';
import { money, reshaped } from './schema-tools.js';

// The catalogue on the later versions. v2.2: a page is the envelope clients read,
// {bundles, pageCount, rows, pageSize}, where v2.1 answers a bare array. v2.4: price in major
// units. The list route sends its page as prebuilt JSON bytes (routes/catalogue/page-json.ts), so
// both are done on the bytes: the envelope around them, each price rewritten in place, with no
// parse and no string decoding of the page.

export const BundleV24 = reshaped(BundleSchema, {
  price: money('Price per bundle'),
});

/** The page envelope around a version's bundle schema. */
export function cataloguePage(bundle: TSchema) {
  return Type.Object(
    {
      bundles: Type.Array(bundle, { description: 'One page of bundles.' }),
      pageCount: Type.Integer({ description: 'Pages of this size over all matching bundles.' }),
      rows: Type.Integer({ description: 'Bundles matching the filters, over all pages.' }),
      pageSize: Type.Integer({ description: 'Bundles per page (perPage).' }),
    },
    {
      description: 'One page of bundles and the paging counters.',
      headers: pagingHeaders('Number of bundles matching the filters, over all pages.'),
    },
  );
}

const PRICE = '"price":';

/**
 * Each `"price":<minor>` of a page as `"price":<major>`, copying everything else as bytes. The
 * search runs on the page read as Latin-1, whose offsets are the byte offsets (one character per
 * byte), so nothing is decoded as UTF-8 and the copies are of the original bytes.
 */
export function pricesInMajorUnits(page: Buffer, currency: string): Buffer {
  const text = page.toString('latin1');
  let at = text.indexOf(PRICE);
  if (at < 0) return page;
  const parts: Buffer[] = [];
  let from = 0;
  let length = 0;
  while (at >= 0) {
    const start = at + PRICE.length;
    let end = start;
    for (let c = text.charCodeAt(end); c === 0x2d || (c >= 0x30 && c <= 0x39);) {
      end += 1;
      c = text.charCodeAt(end);
    }
    const head = page.subarray(from, start);
    const price = Buffer.from(String(toMajor(Number(text.slice(start, end)), currency)), 'latin1');
    parts.push(head, price);
    length += head.length + price.length;
    from = end;
    at = text.indexOf(PRICE, from);
  }
  const tail = page.subarray(from);
  parts.push(tail);
  return Buffer.concat(parts, length + tail.length);
}

const OPEN = Buffer.from('{"bundles":');

/** A page (a JSON array) in the envelope, with its counters from the paging headers. */
export function envelope(page: Buffer, request: FastifyRequest, reply: FastifyReply): Buffer {
  const query = request.query as { perPage?: number } | undefined;
  const pageSize = query?.perPage ?? DEFAULT_PER_PAGE;
  const rows = Number(reply.getHeader('x-total-count') ?? 0);
  const pageCount = Math.ceil(rows / pageSize);
  const close = Buffer.from(`,"pageCount":${pageCount},"rows":${rows},"pageSize":${pageSize}}`);
  return Buffer.concat([OPEN, page, close]);
}

export function pageV22(page: Buffer, request: FastifyRequest, reply: FastifyReply): Buffer {
  return envelope(page, request, reply);
}

export function pageV24(page: Buffer, request: FastifyRequest, reply: FastifyReply): Buffer {
  return envelope(pricesInMajorUnits(page, request.organisation.currency), request, reply);
}

export function bundleV24Answer(
  bundle: { price: number },
  request: FastifyRequest,
): Record<string, unknown> {
  return { ...bundle, price: toMajor(bundle.price, request.organisation.currency) };
}
