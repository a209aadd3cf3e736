import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../../../deps.js';
import type { SimFault } from '../../../domain/simulator/fault.js';
import { takeFault } from '../../../domain/simulator/simulator-control.js';
import { listFaults } from '../../../domain/simulator/simulator-reads.js';
import { sendError } from '../../error-handler.js';

function patternRegex(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}/?$`);
}

function matches(fault: SimFault, method: string, path: string, template: string): boolean {
  if (fault.method !== '*' && fault.method !== method) return false;
  const re = patternRegex(fault.route);
  return re.test(path) || (template !== '' && re.test(template));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Simulated failures on the API's routes, each fault on one version's (simulator mode): runs
 * first on every request, before authentication, so an integrator can see how their client copes
 * with errors and slowness.
 */
export function installFaultHook(app: FastifyInstance, deps: AppDeps): void {
  const simulator = deps.simulator;
  if (simulator === undefined) return;
  const answerFaults = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const faults = await listFaults(deps.store.db);
    if (faults.length === 0) {
      simulator.faultsMayExist = false;
      return undefined;
    }
    const path = request.url.split('?')[0] ?? '';
    const template = request.routeOptions.url ?? '';
    for (const fault of faults) {
      if (!matches(fault, request.method, path, template)) continue;
      if (fault.probability !== null && simulator.network.random.float() >= fault.probability) {
        continue;
      }
      if (fault.remaining !== null && !(await takeFault(deps, fault.id))) continue;
      if (fault.latencyMs > 0) await sleep(fault.latencyMs);
      if (fault.status === null) return undefined;
      return sendError(reply, {
        code: 'simulated_fault',
        status: fault.status,
        message: `simulated fault: ${request.method} ${path} answers ${fault.status} (fault ${fault.id})`,
        retryAfterSeconds: fault.status === 429 || fault.status === 503 ? 1 : undefined,
      });
    }
    return undefined;
  };
  // The callback form, so a request costs no promise while no fault can exist (the usual case).
  app.addHook('onRequest', (request, reply, done) => {
    if (!simulator.faultsMayExist) {
      done();
      return;
    }
    answerFaults(request, reply).then(() => {
      if (!reply.sent) done();
    }, done);
  });
}
