import { Type } from '@sinclair/typebox';
import { EVENT_STATUSES } from '../../../domain/callbacks/deliveries.js';

// Shapes shared by the callback routes (an extension: the v2.1 description has no such endpoints).

export const TAG = 'Callbacks (extension)';

export const StatusEnum = Type.Unsafe<(typeof EVENT_STATUSES)[number]>({
  type: 'string',
  enum: [...EVENT_STATUSES],
  description:
    'pending (waiting for its next attempt), delivering (an attempt is under way), delivered ' +
    '(a 2xx was received), failed (the retry schedule ran out), undeliverable (no callback URL ' +
    'was configured).',
});

export const DeliverySummarySchema = Type.Object({
  id: Type.String({
    description: 'Event id; also sent as the X-Event-Id header of every attempt.',
  }),
  iccid: Type.String({ description: 'ICCID of the eSIM the event is about.' }),
  alertType: Type.String({
    description: 'Utilisation, FirstUse, FirstAttachment or CountryChange.',
  }),
  status: StatusEnum,
  attemptCount: Type.Integer({ description: 'Attempts made so far, over every resend.' }),
  lastStatusCode: Type.Integer({
    description: 'HTTP status of the last attempt; 0 when none was received.',
  }),
  createdAt: Type.String({
    description: 'When the event happened (RFC 3339 UTC); sent as X-Event-Timestamp.',
  }),
  updatedAt: Type.String({ description: 'Last change of the delivery state (RFC 3339 UTC).' }),
  nextAttemptAt: Type.String({
    description: 'When the next attempt is due (RFC 3339 UTC); empty unless pending.',
  }),
  deliveredAt: Type.String({
    description: 'When a 2xx was received (RFC 3339 UTC); empty when not delivered.',
  }),
});

export const AttemptSchema = Type.Object({
  attemptNo: Type.Integer({
    description: 'Number of the attempt, from 1; sent as X-Delivery-Attempt.',
  }),
  attemptedAt: Type.String({ description: 'When the request started (RFC 3339 UTC).' }),
  url: Type.String({ description: 'The callback URL used.' }),
  statusCode: Type.Integer({ description: 'HTTP status received; 0 when there was no response.' }),
  latencyMs: Type.Integer({
    description: 'Time to the complete response or the failure, in milliseconds.',
  }),
  error: Type.String({
    description:
      'Why the attempt failed (timeout, refused address, redirect not followed ...); empty when it did not.',
  }),
  responseSnippet: Type.String({ description: 'The first 512 bytes of the response body.' }),
});

export const DeliveryDetailSchema = Type.Composite([
  DeliverySummarySchema,
  Type.Object({
    payload: Type.Unknown({
      description: 'The full (V3) event body; V2 receivers get its reduced shape.',
    }),
    attempts: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first.' }),
  }),
]);

export const IdParams = Type.Object({
  id: Type.String({ maxLength: 64, description: 'Event id.' }),
});
