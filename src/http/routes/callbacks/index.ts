import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';
import { registerGetCallback } from './get.js';
import { registerListCallbacks } from './list.js';
import { registerResendCallback } from './resend.js';

/** The usage callback deliveries of the caller organisation (an extension of v2.1). */
export function callbacksRoutes(app: Api, deps: AppDeps): void {
  registerListCallbacks(app, deps);
  registerGetCallback(app, deps);
  registerResendCallback(app, deps);
}
