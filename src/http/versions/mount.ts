import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { Api } from '../api.js';
import { allowListRefusals } from '../allow-list-refusals.js';
import { requireApiKey } from '../auth.js';
import { limitByApiKey, limitFailedAuthentication } from '../rate-limit.js';
import { apiRoutes } from '../routes/index.js';
import { installFaultHook } from '../routes/sim/fault-hook.js';
import { applyWire } from './wire.js';
import type { WireVersion } from './wire.js';

/**
 * Mounts one version at its prefix: the platform hooks every version shares (simulated faults,
 * authentication, rate limits), then every route, through the version's wire differences.
 */
export async function mountVersion(
  app: FastifyInstance,
  deps: AppDeps,
  version: WireVersion,
): Promise<void> {
  const refused = allowListRefusals(deps);
  await app.register(
    async (api) => {
      const switches = Object.keys(version.switches).length > 0;
      if (Object.keys(version.routes).length > 0 || version.bodyWithoutContentType || switches) {
        api.addHook('onRoute', (route) => {
          route.config = {
            ...route.config,
            ...(version.bodyWithoutContentType ? { bodyWithoutContentType: true } : {}),
            ...(switches ? { versionSwitches: version.switches } : {}),
          };
          applyWire(version, route, deps);
        });
      }
      installFaultHook(api, deps); // simulator mode only; runs before authentication
      if (deps.rateLimits !== undefined) limitFailedAuthentication(api, deps.rateLimits);
      requireApiKey(api, deps.apiKeys, refused);
      if (deps.rateLimits !== undefined) limitByApiKey(api, deps.rateLimits, deps.config);
      apiRoutes(api as Api, deps);
      for (const routes of version.extraRoutes) routes(api as Api, deps);
    },
    { prefix: version.prefix },
  );
}
