import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { registerListNetworks } from './list.js';

/** Registers every /v2.1 route of this resource (route files sit beside this one). */
export function networksRoutes(app: Api, deps: AppDeps): void {
  registerListNetworks(app, deps);
}
