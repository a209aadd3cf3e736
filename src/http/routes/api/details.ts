import { Type } from '@sinclair/typebox';
import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { apiKeySecurity, standardErrors } from '../../schemas/common.js';

// GET / of a version ("Get API details", tag API, in the live v2.3 and v2.4 navigation): what a
// client that checks its connection and key wants to know. The live answer's shape is not
// published; this one is ours (docs/versions.md). The service root `/` (outside every version)
// stays the links page.

const VERSION_OF_URL = /^\/v(2\.\d+)(?:\/|$)/;

const Details = Type.Object(
  {
    name: Type.String({ description: 'The service.' }),
    version: Type.String({ description: 'The interface version of this path, e.g. "2.3".' }),
    organisation: Type.String({ description: 'The name of the organisation the key belongs to.' }),
    openapi: Type.String({ description: 'This version’s OpenAPI document.' }),
    documentation: Type.String({ description: 'The interactive documentation.' }),
  },
  {
    description: 'The API details.',
    example: {
      name: 'eSIM Bundle Service',
      version: '2.3',
      organisation: 'Demo Travel Ltd',
      openapi: '/v2.3/openapi.json',
      documentation: '/docs',
    },
  },
);

const schema = {
  tags: ['API'],
  operationId: 'getApiDetails',
  summary: 'Get API details',
  description:
    'The service, the interface version of the path, and the organisation of the key: a cheap ' +
    'check that the address and the API key work. Links are absolute when PUBLIC_BASE_URL is set.',
  security: apiKeySecurity,
  response: {
    200: Details,
    400: standardErrors[400],
    403: standardErrors[403],
    500: standardErrors[500],
  },
};

export function registerApiDetails(app: Api, deps: AppDeps): void {
  const base = deps.config.publicBaseUrl;
  app.get('/', { schema }, async (request) => {
    const version = VERSION_OF_URL.exec(request.routeOptions.url ?? '')?.[1] ?? '';
    return {
      name: 'eSIM Bundle Service',
      version,
      organisation: request.organisation.name,
      openapi: `${base}/v${version}/openapi.json`,
      documentation: `${base}/docs`,
    };
  });
}
