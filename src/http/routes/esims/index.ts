import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { registerApplyBundle } from './apply.js';
import { registerEsimBundles } from './bundles.js';
import { registerGetEsim } from './get.js';
import { registerGetEsimHistory } from './history.js';
import { registerInstallData } from './install-data.js';
import { registerInstallFiles } from './install-files.js';
import { registerListEsims } from './list.js';
import { registerGetEsimLocation } from './location.js';
import { registerRefreshEsim } from './refresh.js';
import { registerRevokeBundleByName } from './revoke-by-name.js';
import { registerRevokeAssignment } from './revoke.js';
import { registerSendSms } from './sms.js';
import { registerUpdateEsims } from './update.js';

/** Registers every /v2.1 route of this resource (route files sit beside this one). */
export function esimsRoutes(app: Api, deps: AppDeps): void {
  registerListEsims(app, deps);
  registerInstallData(app, deps);
  registerInstallFiles(app, deps);
  registerUpdateEsims(app, deps);
  registerApplyBundle(app, deps);
  registerGetEsim(app, deps);
  registerGetEsimHistory(app, deps);
  registerGetEsimLocation(app, deps);
  registerSendSms(app, deps);
  registerEsimBundles(app, deps);
  registerRevokeAssignment(app, deps);
  registerRevokeBundleByName(app, deps);
  registerRefreshEsim(app, deps);
}
