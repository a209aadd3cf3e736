import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { registerGetOrder } from './get.js';
import { registerListOrders } from './list.js';
import { registerPlaceOrder } from './place.js';

/** Registers every /v2.1 route of this resource (route files sit beside this one). */
export function ordersRoutes(app: Api, deps: AppDeps): void {
  registerPlaceOrder(app, deps);
  registerGetOrder(app, deps);
  registerListOrders(app, deps);
}
