import type { AppDeps } from '../../deps.js';

/** What the portal's use cases need. Sessions, links and the sign-in throttle run on wall time. */
export type PortalDeps = Pick<
  AppDeps,
  'store' | 'clock' | 'wallClock' | 'random' | 'cipher' | 'config' | 'mailer'
>;
