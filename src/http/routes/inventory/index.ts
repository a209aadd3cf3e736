import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { registerGetInventory } from './get.js';
import { registerRefundInventory } from './refund.js';

/** Registers every /v2.1 route of this resource (route files sit beside this one). */
export function inventoryRoutes(app: Api, deps: AppDeps): void {
  registerGetInventory(app, deps);
  registerRefundInventory(app, deps);
}
