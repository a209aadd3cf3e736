import { Type } from '@sinclair/typebox';
import { ERROR_CATALOGUE } from '../../../domain/errors/error-codes.js';

// The 503 of v2.2 and later while an order or apply of more than five bundles is processed in
// the background (docs/orders.md), as every version's document states it.

const PROCESSING = ERROR_CATALOGUE.processing.message;

export const ProcessingAnswer = Type.Object(
  {
    message: Type.String({ description: `Always "${PROCESSING}".` }),
    code: Type.String({ description: 'Always `processing`.' }),
    orderReference: Type.Optional(
      Type.String({
        description:
          'The reference the order (or apply) will have. GET /orders/{orderReference} answers this same 503 until it is done, then the order; repeating the request (same Idempotency-Key, or the same request without one) answers it too. Left out when the request is answered 503 by a concurrent copy of itself.',
      }),
    ),
  },
  {
    description:
      'Processing: more than five bundles are processed in the background. Ask again after Retry-After seconds; nothing is charged twice.',
    headers: {
      'Retry-After': { type: 'integer', description: 'Seconds to wait before asking again.' },
    },
    example: {
      message: PROCESSING,
      code: 'processing',
      orderReference: '0193a1f2-7c4e-7d21-9b3a-5e8f0c2d4a61',
    },
  },
);

/** The error answers an operation that may be processed in the background adds. */
export const PROCESSING_ERRORS = { 503: ProcessingAnswer } as const;
