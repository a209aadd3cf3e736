import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

// The OpenAPI 3.0.1 document is generated from the route schemas; nothing here repeats them.

export const API_VERSION = '2.1.0';

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.1',
      info: {
        title: 'eSIM Bundle Service',
        version: API_VERSION,
        description:
          'Prepaid eSIM data bundles: organisation, balance top-up, catalogue, orders, inventory, eSIMs and usage callbacks. ' +
          'Money is in minor units of the organisation currency; data amounts in decimal megabytes; durations in days; ' +
          'timestamps are RFC 3339 UTC.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          apiKeyQueryAuth: {
            type: 'apiKey',
            in: 'query',
            name: 'api_key',
            description: 'Accepted on GET and HEAD only.',
          },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json['$id'] ?? `def-${i}`),
    },
  });
}

export async function registerDocsPage(app: FastifyInstance): Promise<void> {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { url: '/v2.1/openapi.json' } as never,
  });
}
