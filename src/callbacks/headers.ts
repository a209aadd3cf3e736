// The request headers of every callback delivery, named once for the sender (delivery.ts), the
// callback schemas and the OpenAPI document (src/http).

export const CALLBACK_HEADERS = {
  signature: 'X-Signature-SHA256',
  eventId: 'X-Event-Id',
  timestamp: 'X-Event-Timestamp',
  attempt: 'X-Delivery-Attempt',
  userAgent: 'User-Agent',
} as const;

/** The User-Agent of every delivery, followed by ` instance/<id>` of the sending instance. */
export const CALLBACK_USER_AGENT = 'esim-bundle-service/2.1 (usage callbacks)';
