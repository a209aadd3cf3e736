import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { Api } from '../api.js';
import { allowListRefusals } from '../allow-list-refusals.js';
import { requireApiKey } from '../auth.js';
import { limitByApiKey, limitFailedAuthentication } from '../rate-limit.js';
import { apiRoutes } from '../routes/index.js';
import { installFaultHook } from '../routes/sim/fault-hook.js';
import { applyVersion } from './apply-version.js';
import type { ApiVersion } from './version.js';

/**
 * Mounts one version at its prefix: the platform hooks every version shares (simulated faults,
 * authentication, rate limits), then every route, each with the version's presenters,
 * capabilities and request differences.
 */
export async function mountVersion(
  app: FastifyInstance,
  deps: AppDeps,
  version: ApiVersion,
): Promise<void> {
  const refused = allowListRefusals(deps);
  await app.register(
    async (api) => {
      api.addHook('onRoute', (route) => applyVersion(version, route));
      installFaultHook(api, deps); // simulator mode only; runs before authentication
      if (deps.rateLimits !== undefined)
        limitFailedAuthentication(api, deps.rateLimits, deps.config);
      requireApiKey(api, deps.apiKeys, refused);
      if (deps.rateLimits !== undefined) limitByApiKey(api, deps.rateLimits, deps.config);
      apiRoutes(api as Api, deps);
      for (const routes of version.extraRoutes) routes(api as Api, deps);
    },
    { prefix: version.prefix },
  );
}
