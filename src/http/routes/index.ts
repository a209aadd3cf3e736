import type { AppDeps } from '../../deps.js';
import type { Api } from '../api.js';
import { callbacksRoutes } from './callbacks/index.js';
import { catalogueRoutes } from './catalogue/index.js';
import { esimsRoutes } from './esims/index.js';
import { inventoryRoutes } from './inventory/index.js';
import { networksRoutes } from './networks/index.js';
import { ordersRoutes } from './orders/index.js';
import { organisationRoutes } from './organisation/index.js';

/**
 * Every route of the API, defined once. Each version registers them in its own scope
 * (versions/mount.ts), which applies that version's wire differences.
 */
export function apiRoutes(api: Api, deps: AppDeps): void {
  organisationRoutes(api, deps);
  catalogueRoutes(api, deps);
  ordersRoutes(api, deps);
  inventoryRoutes(api, deps);
  esimsRoutes(api, deps);
  networksRoutes(api, deps);
  callbacksRoutes(api, deps);
}
