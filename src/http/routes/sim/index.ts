import type { AppDeps } from '../../../deps.js';
import type { Api } from '../../api.js';

/** Registers the simulator control plane under /_sim (simulator mode only). */
export function simRoutes(app: Api, deps: AppDeps): void {
  void app;
  void deps;
}
