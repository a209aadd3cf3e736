import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { isCallbackReceiver, registerSimCallbackReceiver } from './callback-receiver.js';
import { registerSimClock } from './clock.js';
import { registerSimEsims } from './esims.js';
import { registerSimFaults } from './faults.js';
import { registerSimProcessing } from './processing.js';
import { registerSimRequests } from './requests.js';
import { registerSimReset } from './reset.js';
import { registerSimSnapshot } from './snapshot.js';
import { simAuthHook } from './sim-schema.js';
import { registerSimSms } from './sms.js';

/** Registers the simulator control plane under /_sim (simulator mode only). */
export function simRoutes(app: Api, deps: AppDeps): void {
  app.addHook('onRequest', simAuthHook(deps, isCallbackReceiver));
  registerSimEsims(app, deps);
  registerSimClock(app, deps);
  registerSimSms(app, deps);
  registerSimProcessing(app, deps);
  registerSimFaults(app, deps);
  registerSimReset(app, deps);
  registerSimSnapshot(app, deps);
  registerSimRequests(app, deps);
  registerSimCallbackReceiver(app, deps);
}
