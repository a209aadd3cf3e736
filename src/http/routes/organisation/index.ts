import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { registerGetOrganisation } from './get.js';
import { registerListOrganisationGroups } from './groups.js';
import { registerTopUp } from './top-up.js';

export function organisationRoutes(app: Api, deps: AppDeps): void {
  registerGetOrganisation(app, deps);
  registerTopUp(app, deps);
  registerListOrganisationGroups(app, deps);
}
