import type { Config } from '../config.js';
import { openServices } from '../main.js';
import type { AppDeps } from '../deps.js';

/** Opens the database (applying pending migrations), runs fn, and always closes it. */
export async function withServices<T>(
  config: Config,
  fn: (deps: AppDeps) => Promise<T>,
): Promise<T> {
  const services = await openServices(config);
  try {
    return await fn(services.deps);
  } finally {
    await services.close();
  }
}
