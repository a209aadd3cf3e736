import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { registerGetCatalogueBundle } from './get.js';
import { registerListCatalogue } from './list.js';

/** Registers every /v2.1 route of this resource (route files sit beside this one). */
export function catalogueRoutes(app: Api, deps: AppDeps): void {
  registerListCatalogue(app, deps);
  registerGetCatalogueBundle(app, deps);
}
